// What the account rules need, and who is calling. The GraphQL door hands in its services bundle
// (it has all of these); the gateway, start-up and the CLI can build the same from their own parts.
import type { AuditLog } from '../auth/audit-log.ts';
import type { LoginThrottle } from '../auth/login-throttle.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { SessionTokens } from '../auth/sessions.ts';
import type { SetupCode } from '../auth/setup-code.ts';
import type { Clock, TokenHasher } from '../auth/tokens.ts';
import type { ApiConfig } from '../config.ts';
import type { ChangeBus } from '../dashboards/bus.ts';
import type { DashboardService } from '../dashboards/service.ts';
import type { Store } from '../db/store.ts';
import type { Logger } from '../log.ts';
import type { ResetRequests } from './reset-requests.ts';

export interface AccountServices {
  config: ApiConfig;
  store: Store;
  passwords: PasswordHasher;
  sessions: SessionTokens;
  tokens: TokenHasher;
  throttle: LoginThrottle;
  resetRequests: ResetRequests;
  audit: AuditLog;
  /** Only the sign-in failure counter of §15 is the accounts' to move. */
  metrics: { authFailureCount: number };
  /** Deleting a user offboards its dashboards in the same transaction (§6.6). */
  dashboards: DashboardService;
  bus: ChangeBus;
  clock: Clock;
  logger: Logger;
  setupCode: SetupCode;
}

/**
 * An anonymous caller, known only by where it calls from: `clientIp` (§5.6) for throttles, quotas
 * and audit metadata, `socketAddress` (the raw peer) for the first-run rule of §6.1 alone.
 */
export interface CallerAddresses {
  clientIp: string;
  socketAddress: string | undefined;
}
