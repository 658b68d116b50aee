// The composition root of the core's rules: secrets, the database and every area's service, opened
// once per workstation. GraphQL, the gateway (embedded and its internal door), start-up and the CLI
// each take what they need from here; none of them owns it.
import { actOnResetRequests } from './accounts/password-resets.ts';
import { readPolicy } from './accounts/policy.ts';
import { ResetRequests } from './accounts/reset-requests.ts';
import { createBootstrapAdmin } from './accounts/users.ts';
import { AuditLog } from './auth/audit-log.ts';
import { LoginThrottle } from './auth/login-throttle.ts';
import { type Argon2Cost, createArgon2Hasher, type PasswordHasher } from './auth/passwords.ts';
import { RequestQuota } from './auth/rate-limit.ts';
import { SessionTokens } from './auth/sessions.ts';
import { SetupCode } from './auth/setup-code.ts';
import { iso, TokenHasher } from './auth/tokens.ts';
import type { Now } from './clock.ts';
import type { ApiConfig } from './config/api.ts';
import { ChangeBus } from './dashboards/bus.ts';
import { DashboardService } from './dashboards/service.ts';
import { type Database, openDatabase } from './db/database.ts';
import { Store } from './db/store.ts';
import { pruneRevocationEvents } from './gateway/internal/revocations.ts';
import {
  type GatewayMetricsSource,
  gatewayMetricsFromUrl,
  NO_SHOP_LINKS,
  RuntimeMetrics,
  type ShopLinks,
} from './graphql/metrics.ts';
import { ClientAddresses } from './http/client-address.ts';
import type { Logger } from './log.ts';
import { BrokerProfileService } from './profiles/brokers.ts';
import { CredentialProfileService } from './profiles/credentials.ts';
import { SecretSealer } from './profiles/envelope.ts';
import { SessionTokenService } from './profiles/session-tokens.ts';
import { loadSecrets, type Secrets } from './secrets.ts';
import { ServiceAccountService } from './service-accounts/service.ts';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Every area's service and what they share, built once per workstation. */
export interface Services {
  config: ApiConfig;
  store: Store;
  passwords: PasswordHasher;
  sessions: SessionTokens;
  tokens: TokenHasher;
  throttle: LoginThrottle;
  /** `requestPasswordReset` behind its quota, acted on in batches so a burst costs one KDF pass. */
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
  /** Changes after commit, for subscriptions (§9) and the realtime gateway. */
  bus: ChangeBus;
  /** The realtime gateway's counters for `adminRuntimeMetrics` (§15). */
  gatewayMetrics: GatewayMetricsSource;
  /** The fleet publisher and OPC UA server, for `adminRuntimeMetrics` (set by startWorkstation). */
  shopLinks: ShopLinks;
  clock: Now;
  logger: Logger;
  /** §6.1: the first-run setup code while nobody has an account. */
  setupCode: SetupCode;
}

export interface ServicesOptions {
  config: ApiConfig;
  dataDir: string;
  logger: Logger;
  /** Milliseconds since the epoch; tests move it to expire sessions and locks without sleeping. */
  clock?: Now;
  /** Argon2id cost; the spec's by default. Tests lower it to stay fast. */
  argon2Cost?: Argon2Cost;
  /** Replaces the password hasher outright (tests count the KDF work with it). */
  passwords?: PasswordHasher;
}

/** The services with what only the composition root holds: the secrets, the database, the prune. */
export interface OpenedServices {
  services: Services;
  secrets: Secrets;
  database: Database;
  /** Removes expired limiter rows, dead reset tokens and old revocation events; at start, then hourly. */
  prune(): void;
  close(): void;
}

/**
 * Opens secrets, the database (migrated), the services and the bootstrap admin. Called by
 * `startWorkstation` before any door listens, so a bad database or secret stops the start.
 */
export async function openServices(options: ServicesOptions): Promise<OpenedServices> {
  const { config, dataDir } = options;
  const logger = options.logger.child({ component: 'dashboard-api' });
  const clock = options.clock ?? Date.now;
  const secrets = await loadSecrets(dataDir, config.configuredSecrets, logger);
  const database = openDatabase(dataDir);
  try {
    const store = new Store(database);
    const metrics = new RuntimeMetrics(clock);
    const tokens = new TokenHasher(secrets.TOKEN_PEPPER);
    // CREATE_ADMIN makes (or finds) the first user below, so no setup code is needed then.
    const setupCode = await SetupCode.open(
      dataDir,
      config.bootstrapAdmin !== null || store.users.count() > 0,
    );
    const audit = new AuditLog(store, clock, logger, () => {
      metrics.auditWriteFailureCount += 1;
    });
    const bus = new ChangeBus();
    const services: Services = {
      config,
      store,
      passwords: options.passwords ?? (await createArgon2Hasher(options.argon2Cost)),
      sessions: new SessionTokens(secrets.JWT_SECRET, config.jwtExpirationSeconds, clock),
      tokens,
      throttle: new LoginThrottle(store, tokens, config.login, clock),
      resetRequests: new ResetRequests(
        new RequestQuota(store, tokens, clock),
        (emails) => actOnResetRequests(services, emails),
        logger,
      ),
      clientAddresses: new ClientAddresses(
        { hops: config.trustProxyHops, trustedProxies: config.trustedProxies },
        logger,
        clock,
      ),
      audit,
      metrics,
      bus,
      dashboards: new DashboardService({ store, clock, audit, bus, policy: () => readPolicy(store) }),
      credentialProfiles: new CredentialProfileService({
        store,
        clock,
        audit,
        sealer: new SecretSealer(secrets.CREDENTIAL_ENCRYPTION_KEY),
        logger,
        bus,
      }),
      brokerProfiles: new BrokerProfileService({ store, clock, audit, bus }),
      sessionTokens: new SessionTokenService({
        store,
        clock,
        audit,
        tokens,
        config: config.datasource,
        gatewaySecret: secrets.JWT_GATEWAY_SECRET,
        metrics,
      }),
      serviceAccounts: new ServiceAccountService({ store, clock, audit, tokens, bus }),
      gatewayMetrics: gatewayMetricsFromUrl(
        config.gateway.runtimeMetricsUrl,
        secrets.GATEWAY_SERVICE_TOKEN,
        logger,
      ),
      shopLinks: { ...NO_SHOP_LINKS },
      clock,
      logger,
      setupCode,
    };
    await createBootstrapAdmin(services);
    const prune = () => {
      try {
        store.limiter.pruneExpired(iso(clock()));
        store.passwordResets.pruneDead(iso(clock()));
        pruneRevocationEvents({ store, clock, retentionSeconds: config.revokeEventRetentionSeconds });
      } catch (error) {
        logger.warn({ err: error }, 'pruning expired limiter rows and reset tokens failed');
      }
    };
    prune();
    const timer = setInterval(prune, PRUNE_INTERVAL_MS);
    timer.unref();
    return {
      services,
      secrets,
      database,
      prune,
      close: () => {
        clearInterval(timer);
        services.resetRequests.close();
        database.close();
      },
    };
  } catch (error) {
    database.close();
    throw error;
  }
}
