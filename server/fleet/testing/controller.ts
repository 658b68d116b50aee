// Test support: the machine process as the machine feed hears it, a status and its events, driven by
// the test (connect, stream, pause, fail) without a serial port.
import type { MachineEvent, MachineStatus } from '../../../engine/machine/types.ts';
import type { MachineStatusSource } from '../../gateway/realtime/machine-feed.ts';

export class Controller implements MachineStatusSource {
  current: MachineStatus = {
    state: 'ready',
    port: '/dev/ttyUSB0',
    baudRate: 250000,
    controller: { firmware: 'Marlin', capabilities: {}, advancedOk: true },
    job: null,
  };
  readonly #listeners = new Set<(event: MachineEvent) => void>();
  #seq = 0;
  status(): MachineStatus {
    return this.current;
  }
  subscribe(listener: (event: MachineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** A state change; an error state may say why, as the machine process's do. */
  state(state: MachineStatus['state'], message?: string): void {
    this.current = { ...this.current, state };
    this.#emit({ type: 'state', state, ...(message ? { message } : {}), seq: 0 });
  }
  progress(acknowledged: number, total = 1000): void {
    const job = {
      sent: acknowledged,
      acknowledged,
      total,
      line: acknowledged,
      sourceLine: acknowledged,
      command: 'G1',
      elapsed_s: acknowledged / 10,
      remaining_s: (total - acknowledged) / 10,
    };
    this.current = { ...this.current, job };
    this.#emit({ type: 'progress', ...job, seq: 0 });
  }
  #emit(event: MachineEvent): void {
    this.#seq += 1;
    for (const listener of this.#listeners) listener({ ...event, seq: this.#seq });
  }
}
