// The one message a workstation keeps on the shop's broker: who it is, whether it is online, a
// status a fleet view can colour, and the `machine` datasource's value as the local dashboards see it.
import type { MachineValue } from '../gateway/realtime/machine-feed.ts';

export type FleetStatus = 'running' | 'paused' | 'idle' | 'error' | 'disconnected' | 'offline';
export type OfflineReason = 'shutdown' | 'connection lost';

export interface FleetIdentity {
  workstationId: string;
  name: string;
  /** Random per process start: two processes claiming one id tell themselves apart by it. */
  instance: string;
  /** When this process's publisher started (ISO); of two with one id, the later one gives way. */
  since: string;
  towpathVersion: string;
  lanUrl: string | null;
}

export interface FleetState {
  v: 1;
  workstationId: string;
  name: string;
  online: boolean;
  status: FleetStatus;
  /** Only when offline. */
  reason?: OfflineReason;
  since: string;
  instance: string;
  towpathVersion: string;
  lanUrl?: string;
  machine: MachineValue | null;
  at: string;
}

/** The status a fleet view shows: errors first, then whether the controller is there, then the job. */
export function fleetStatus(machine: MachineValue): FleetStatus {
  if (machine.controllerState === 'error' || machine.jobState === 'error') return 'error';
  if (machine.connection !== 'connected') return 'disconnected';
  if (machine.jobState === 'paused') return 'paused';
  if (machine.jobState === 'streaming') return 'running';
  return 'idle';
}

function base(identity: FleetIdentity): Omit<FleetState, 'online' | 'status' | 'machine' | 'at'> {
  return {
    v: 1,
    workstationId: identity.workstationId,
    name: identity.name,
    since: identity.since,
    instance: identity.instance,
    towpathVersion: identity.towpathVersion,
    ...(identity.lanUrl !== null ? { lanUrl: identity.lanUrl } : {}),
  };
}

export function onlineState(identity: FleetIdentity, machine: MachineValue, at: Date): FleetState {
  return { ...base(identity), online: true, status: fleetStatus(machine), machine, at: at.toISOString() };
}

export function offlineState(identity: FleetIdentity, reason: OfflineReason, at: Date): FleetState {
  return { ...base(identity), online: false, status: 'offline', reason, machine: null, at: at.toISOString() };
}

/**
 * Whether a message on our own state topic says another process is online under our id, and if
 * so whether it started first (then we are the one to give way).
 */
export function otherInstance(identity: FleetIdentity, payload: Buffer): { startedFirst: boolean } | null {
  let message: unknown;
  try {
    message = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof message !== 'object' || message === null) return null;
  const { online, instance, since } = message as Record<string, unknown>;
  if (online !== true || typeof instance !== 'string' || instance === identity.instance) return null;
  const theirs = typeof since === 'string' ? Date.parse(since) : Number.NaN;
  const ours = Date.parse(identity.since);
  // A state without a readable start time is treated as the older claim: giving way is the safe side.
  const startedFirst =
    Number.isNaN(theirs) || theirs < ours || (theirs === ours && instance < identity.instance);
  return { startedFirst };
}
