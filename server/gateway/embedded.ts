// The realtime gateway embedded in the LAN door (gateway spec §1): the fetch relay and the realtime
// socket on the same listener as /graphql, introspecting in-process and fed by the change bus.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import type { Resolver } from './egress.ts';
import { EgressRefusals } from './egress-audit.ts';
import { FETCH_PATH, fetchRelayRoutes } from './fetch-relay.ts';
import { introspectionDeps } from './internal/checks.ts';
import { GatewayMetrics } from './metrics.ts';
import { REALTIME_PATH, RealtimeGateway } from './realtime/gateway.ts';
import { MachineFeed, type MachineStatusSource } from './realtime/machine-feed.ts';
import type { GatewaySettings } from './settings.ts';
import { UpstreamPool } from './upstreams/pool.ts';

export interface GatewayOptions {
  settings: GatewaySettings;
  services: Services;
  gatewaySecret: string;
  /** The machine process's status (the `machine` datasource); none in tests without a machine. */
  machine?: MachineStatusSource;
  /** Tests replace DNS. */
  resolver?: Resolver;
}

export interface Gateway {
  metrics: GatewayMetrics;
  realtime: RealtimeGateway;
  pool: UpstreamPool;
  /** Mounts both routes and the upgrade listener on the LAN door. */
  register(app: FastifyInstance): Promise<void>;
  close(): Promise<void>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const { settings, services } = options;
  const logger = services.logger.child({ component: 'gateway' });
  const metrics = new GatewayMetrics(services.clock);
  const introspection = introspectionDeps(services, options.gatewaySecret);
  const pool = new UpstreamPool(
    {
      egress: settings.egress,
      connectTimeoutMs: settings.upstreamConnectTimeoutMs,
      maxMessageBytes: settings.maxMessageBytes,
      logger,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    },
    settings.mqttMaxConnectionsPerBroker,
  );
  const machine = options.machine ? new MachineFeed(options.machine) : null;
  const egressRefusals = new EgressRefusals(services.audit, logger, services.clock);
  const realtime = new RealtimeGateway({
    settings,
    store: services.store,
    clock: services.clock,
    tokens: services.tokens,
    audit: services.audit,
    logger,
    sessions: services.sessions,
    serviceAccounts: async (id, secret) => services.serviceAccounts.authenticate(id, secret),
    dashboards: services.dashboards,
    clientAddresses: services.clientAddresses,
    bus: services.bus,
    corsOrigins: services.config.corsOrigins,
    introspection,
    gatewaySecret: options.gatewaySecret,
    metrics,
    pool,
    egressRefusals,
    machine,
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  return {
    metrics,
    realtime,
    pool,
    register: async (app) => {
      app.server.on('upgrade', (request, socket, head) => realtime.handleUpgrade(request, socket, head));
      await app.register(async (scope) =>
        fetchRelayRoutes(scope, {
          settings,
          introspection,
          metrics,
          egressRefusals,
          clock: services.clock,
          logger,
          ...(options.resolver ? { resolver: options.resolver } : {}),
        }),
      );
      // A plain request where a WebSocket upgrade belongs (§3.1 check 1).
      app.all(REALTIME_PATH, async (_request, reply) => {
        if (!settings.enabled) return reply.code(404).send({ error: 'Not found' });
        return reply.code(426).header('upgrade', 'websocket').send({ error: 'WebSocket upgrade required' });
      });
    },
    close: async () => {
      await realtime.close();
      machine?.close();
    },
  };
}

export { FETCH_PATH, REALTIME_PATH };
