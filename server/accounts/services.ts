// What the account rules need of the workstation's services, and who is calling.
import type { Services } from '../services.ts';

export type AccountServices = Pick<
  Services,
  | 'config'
  | 'store'
  | 'passwords'
  | 'sessions'
  | 'tokens'
  | 'throttle'
  | 'resetRequests'
  | 'audit'
  | 'metrics'
  | 'dashboards'
  | 'bus'
  | 'clock'
  | 'logger'
  | 'setupCode'
>;

/**
 * An anonymous caller, known only by where it calls from: `clientIp` (§5.6) for throttles, quotas
 * and audit metadata, `socketAddress` (the raw peer) for the first-run rule of §6.1 alone.
 */
export interface CallerAddresses {
  clientIp: string;
  socketAddress: string | undefined;
}
