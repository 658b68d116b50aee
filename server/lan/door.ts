import type { FastifyInstance } from 'fastify';
import type { BridgeEnv } from '../../bridge/config.ts';
import { createHttpApp, type HttpTimeouts } from '../http/app.ts';
import type { ClientAddresses } from '../http/client-address.ts';
import type { Door } from '../http/door.ts';
import { requestGuards } from '../http/guards.ts';
import { healthRoute } from '../http/health.ts';
import type { Logger } from '../log.ts';
import { type MachineForwardOptions, machineForwardRoutes } from '../machine/forward.ts';
import { taskRoutes } from '../tasks/routes.ts';
import { doorControlRoutes } from './door-control.ts';
import { type LinksOptions, linksRoute } from './links.ts';
import { serveRenderer } from './renderer.ts';
import { widgetFrameRoute } from './widget-frame.ts';

export interface LanDoorOptions {
  logger: Logger;
  rendererDir: string;
  winding: Door;
  /** How clients are told apart (§5.6): the dashboard API's, so both judge a request alike. */
  clientAddresses?: ClientAddresses;
  /** Mounts the dashboard GraphQL API (`/graphql`, `/health`) when given. */
  graphql?: (app: FastifyInstance) => Promise<void>;
  /** Mounts the gateway's internal door (`/internal/gateway/*`) when given. */
  internalGateway?: (app: FastifyInstance) => Promise<void>;
  /** Mounts the realtime gateway (`/gateway/*`) when given. */
  gateway?: (app: FastifyInstance) => Promise<void>;
  /** Mounts /api/machine/* (forwarded to the machine process) for the renderer when given. */
  machine?: MachineForwardOptions;
  /** `ALLOWED_HOSTS` and `CORS_ORIGINS` for the door's request guards; none by default. */
  guards?: { allowedHosts: readonly string[]; corsOrigins: readonly string[] };
  /** Tests shorten the client timeouts; the defaults otherwise. */
  timeouts?: HttpTimeouts;
  /** Mounts /api/tasks/* (the operator's task app, loopback only) when given the bridge's env. */
  tasks?: BridgeEnv;
  /** Where the links the screens hand out point (`/api/links`); the page's origin when not given. */
  links?: LinksOptions;
  /** False while the core is still starting: /healthz answers 503 (health.ts). */
  ready?: () => boolean;
}

/** The LAN door: the renderer, its APIs and GraphQL, for the Electron window and LAN browsers. */
export async function buildLanDoor({
  logger,
  rendererDir,
  winding,
  clientAddresses,
  graphql,
  internalGateway,
  gateway,
  machine,
  guards = { allowedHosts: [], corsOrigins: [] },
  timeouts,
  tasks,
  links,
  ready,
}: LanDoorOptions): Promise<FastifyInstance> {
  const app = createHttpApp(logger, 'lan', undefined, timeouts);
  // First, so every route below (GraphQL included) is behind them.
  requestGuards(app, { hosts: 'any', ...guards });
  await app.register(healthRoute, { ready });
  await app.register(doorControlRoutes, { winding, clientAddresses });
  if (links) await app.register(linksRoute, links);
  if (graphql) await graphql(app);
  if (internalGateway) await internalGateway(app);
  if (gateway) await gateway(app);
  if (machine) await app.register(machineForwardRoutes, { ...machine, clientAddresses });
  if (tasks) await app.register(taskRoutes, { env: tasks, clientAddresses });
  await app.register(widgetFrameRoute);
  // Not an encapsulated plugin: the SPA fallback must be the door's own 404 handler.
  await serveRenderer(app, { rendererDir });
  return app;
}
