import type { FastifyInstance } from 'fastify';
import { ResetRequests } from '../accounts/reset-requests.ts';
import { AuditLog } from '../auth/audit-log.ts';
import { LoginThrottle, RequestQuota } from '../auth/limiter.ts';
import { type Argon2Cost, createArgon2Hasher, type PasswordHasher } from '../auth/passwords.ts';
import { NO_SERVICE_ACCOUNTS, type ServiceAccountAuthenticator } from '../auth/principal.ts';
import { SessionTokens } from '../auth/sessions.ts';
import { SetupCode } from '../auth/setup-code.ts';
import { type Clock, iso, TokenHasher } from '../auth/tokens.ts';
import type { ApiConfig } from '../config.ts';
import { ChangeBus } from '../dashboards/bus.ts';
import { DashboardService } from '../dashboards/service.ts';
import { createWinderDashboard } from '../dashboards/winder.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { Store } from '../db/store.ts';
import { ClientAddresses } from '../http/client-address.ts';
import type { Logger } from '../log.ts';
import { BrokerProfileService } from '../profiles/brokers.ts';
import { CredentialProfileService } from '../profiles/credentials.ts';
import { SecretSealer } from '../profiles/envelope.ts';
import { SessionTokenService } from '../profiles/session-tokens.ts';
import { loadSecrets, type Secrets } from '../secrets.ts';
import type { ApiServices } from './context.ts';
import { gatewayMetricsFromUrl, RuntimeMetrics } from './metrics.ts';
import { newUserRow } from './modules/accounts.ts';
import { actOnResetRequests } from './modules/password-resets.ts';
import { readPolicy } from './modules/policy.ts';
import { createGraphqlStream } from './stream.ts';
import { createGraphqlServer, graphqlRoutes } from './yoga.ts';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface DashboardApiOptions {
  config: ApiConfig;
  dataDir: string;
  logger: Logger;
  /** Milliseconds since the epoch; tests move it to expire sessions and locks without sleeping. */
  clock?: Clock;
  /** Argon2id cost; the spec's by default. Tests lower it to stay fast. */
  argon2Cost?: Argon2Cost;
  /** Replaces the password hasher outright (tests count the KDF work with it). */
  passwords?: PasswordHasher;
  serviceAccounts?: ServiceAccountAuthenticator;
}

export interface DashboardApi {
  services: ApiServices;
  secrets: Secrets;
  database: Database;
  /** Removes expired limiter rows and dead reset tokens; runs at start and then hourly. */
  prune(): void;
  /** Registers `/graphql` and `/health` on a fastify instance (the LAN door). */
  register(app: FastifyInstance): Promise<void>;
  close(): void;
}

/**
 * Opens the dashboard API: secrets, the database (migrated), the services, the bootstrap admin.
 * Called by `startWorkstation` before any door listens, so a bad database or secret stops the start.
 */
export async function openDashboardApi(options: DashboardApiOptions): Promise<DashboardApi> {
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
    const services: ApiServices = {
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
      }),
      brokerProfiles: new BrokerProfileService({ store, clock, audit }),
      sessionTokens: new SessionTokenService({
        store,
        clock,
        audit,
        tokens,
        config: config.datasource,
        gatewaySecret: secrets.JWT_GATEWAY_SECRET,
        metrics,
      }),
      gatewayMetrics: gatewayMetricsFromUrl(
        config.gateway.runtimeMetricsUrl,
        secrets.GATEWAY_SERVICE_TOKEN,
        logger,
      ),
      clock,
      logger,
      setupCode,
    };
    await bootstrapAdmin(services);
    const prune = () => {
      try {
        store.limiter.pruneExpired(iso(clock()));
        store.passwordResets.pruneDead(iso(clock()));
      } catch (error) {
        logger.warn({ err: error }, 'pruning expired limiter rows and reset tokens failed');
      }
    };
    prune();
    const timer = setInterval(prune, PRUNE_INTERVAL_MS);
    timer.unref();
    const yoga = createGraphqlServer(services, options.serviceAccounts ?? NO_SERVICE_ACCOUNTS);
    const stream = createGraphqlStream(yoga);
    return {
      services,
      secrets,
      database,
      prune,
      register: async (app) => {
        await app.register(graphqlRoutes(yoga, services, stream));
      },
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

/** §6.1 `CREATE_ADMIN=true`: an active admin for that email unless a user already has it. */
async function bootstrapAdmin(services: ApiServices): Promise<void> {
  const admin = services.config.bootstrapAdmin;
  if (!admin) return;
  const { store } = services;
  if (store.users.byEmail(admin.email)) return;
  const passwordHash = await services.passwords.hash(admin.password);
  const user = store.transaction(() => {
    if (store.users.byEmail(admin.email)) return null;
    const row = newUserRow(services, { email: admin.email, passwordHash, role: 'admin', active: true });
    store.users.insert(row);
    return row;
  });
  if (!user) return;
  services.logger.info({ email: user.email }, 'created the bootstrap admin');
  services.audit.record({
    actorUserId: null,
    action: 'user.admin_created',
    targetType: 'user',
    targetId: user.id,
    metadata: { role: 'admin', active: true, bootstrap: true },
  });
  // After the account's own audit record, so the log reads in the order things happened.
  createWinderDashboard(services.dashboards, user, services.logger);
}
