// The OPC 40001-1 MachineryItemState a shop's MES sees for this winder, from the same status the
// fleet's MQTT state carries, so both views always agree.
import type { MachineValue } from '../../gateway/realtime/machine-feed.ts';
import { fleetStatus } from '../state.ts';

export type MachineryItemState = 'NotAvailable' | 'NotExecuting' | 'Executing' | 'OutOfService';

export function machineryItemState(machine: MachineValue): MachineryItemState {
  switch (fleetStatus(machine)) {
    // A controller or job error, an e-stop among them: the machine cannot work until someone acts.
    case 'error':
      return 'OutOfService';
    case 'disconnected':
      return 'NotAvailable';
    case 'running':
      return 'Executing';
    default:
      // Idle or paused: there, able to work, not working now.
      return 'NotExecuting';
  }
}
