import type { ResetRequests } from '../accounts/reset-requests.ts';
import type { AuditLog } from '../auth/audit-log.ts';
import type { LoginThrottle } from '../auth/login-throttle.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { Principal } from '../auth/principal.ts';
import type { SessionTokens } from '../auth/sessions.ts';
import type { SetupCode } from '../auth/setup-code.ts';
import type { Clock, TokenHasher } from '../auth/tokens.ts';
import type { ApiConfig } from '../config.ts';
import type { ChangeBus } from '../dashboards/bus.ts';
import type { DashboardService } from '../dashboards/service.ts';
import type { UserRow } from '../db/repositories/users.ts';
import type { Store } from '../db/store.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import type { Logger } from '../log.ts';
import type { BrokerProfileService } from '../profiles/brokers.ts';
import type { CredentialProfileService } from '../profiles/credentials.ts';
import type { SessionTokenService } from '../profiles/session-tokens.ts';
import type { ServiceAccountService } from '../service-accounts/service.ts';
import { ADMIN_ROLE_REQUIRED, forbidden, unauthenticated } from './errors.ts';
import type { GatewayMetricsSource, RuntimeMetrics } from './metrics.ts';

/** Everything resolvers use, built once per workstation. */
export interface ApiServices {
  config: ApiConfig;
  store: Store;
  passwords: PasswordHasher;
  sessions: SessionTokens;
  tokens: TokenHasher;
  throttle: LoginThrottle;
  /** `requestPasswordReset` behind its quota, acted on in batches (issue #10, item 5). */
  resetRequests: ResetRequests;
  /** §5.6, shared with the LAN door's loopback-only routes. */
  clientAddresses: ClientAddresses;
  audit: AuditLog;
  metrics: RuntimeMetrics;
  /** The dashboard rules (server/dashboards). */
  dashboards: DashboardService;
  /** Credential profiles (server/profiles). */
  credentialProfiles: CredentialProfileService;
  brokerProfiles: BrokerProfileService;
  /** Datasource session tokens for the gateway (§11). */
  sessionTokens: SessionTokenService;
  /** Service accounts and their `fsa_` tokens (§12). */
  serviceAccounts: ServiceAccountService;
  /** Changes after commit, for subscriptions (§9) and later the realtime gateway. */
  bus: ChangeBus;
  /** The realtime gateway's counters for `adminRuntimeMetrics` (§15). */
  gatewayMetrics: GatewayMetricsSource;
  clock: Clock;
  logger: Logger;
  /** §6.1: the first-run setup code while nobody has an account. */
  setupCode: SetupCode;
}

/** Per request. */
export interface RequestContext {
  services: ApiServices;
  principal: Principal;
  /** §5.6: for throttles and audit metadata only. */
  clientIp: string;
  /** The raw socket address, used only by the first-run rule (§6.1). */
  socketAddress: string | undefined;
}

/** Logged-in user or UNAUTHENTICATED; service accounts calling user operations are anonymous (§4). */
export function requireUser(context: RequestContext): UserRow {
  if (context.principal.kind !== 'user') throw unauthenticated();
  return context.principal.user;
}

export function requireAdmin(context: RequestContext): UserRow {
  const user = requireUser(context);
  if (user.role !== 'admin') throw forbidden(ADMIN_ROLE_REQUIRED);
  return user;
}
