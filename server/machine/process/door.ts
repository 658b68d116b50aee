// The machine door: the machine process's own listener on 127.0.0.1:MACHINE_PORT. It serves the
// machine API (routes.ts) and nothing heavy: no planning, no GraphQL, no large parsed bodies. Who
// may talk to it: clients on the workstation (the cores' LAN and winding doors, `towpath estop`,
// the desktop app) and, with CORS, pages served by an attached core's LAN door on loopback (the
// renderer's e-stop button, over its POST route or its standing WebSocket line).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MACHINE_PROCESS_ROUTES } from '../../../engine/machine/door.ts';
import { createHttpApp } from '../../http/app.ts';
import { requestGuards } from '../../http/guards.ts';
import { healthRoute } from '../../http/health.ts';
import type { Logger } from '../../log.ts';
import type { MachineController } from './controller.ts';
import { estopSocket } from './estop-socket.ts';
import type { JobHistory } from './job-history.ts';
import type { ProfileStore } from './profiles.ts';
import { type CoreAttachments, machineRoutes } from './routes.ts';

/** How long a browser may reuse a CORS preflight (Chromium caps it at two hours). */
export const PREFLIGHT_MAX_AGE_S = 7200;

export interface MachineDoorOptions {
  logger: Logger;
  machine: MachineController;
  allowRemote: () => boolean;
  allowedRoots: string[];
  /**
   * Origins allowed to call the door from a page: the LAN door's loopback origins of every attached
   * core (http://127.0.0.1:<port>, http://localhost:<port>, http://[::1]:<port>). The door-wide
   * Origin check accepts these too.
   */
  allowedOrigins: () => readonly string[];
  /** `ALLOWED_HOSTS`: names besides the loopback ones the door answers to. */
  allowedHosts?: readonly string[];
  attachments: CoreAttachments;
  /** A core leaves on purpose (it called `/machine/release`). */
  onRelease: (pid: number) => void;
  /** Machine profiles and the job history, in the machine database. */
  profiles?: ProfileStore;
  history?: JobHistory;
}

export async function buildMachineDoor(options: MachineDoorOptions): Promise<FastifyInstance> {
  const app = createHttpApp(options.logger, 'machine');

  // The door-wide checks first (loopback Host names, Origin, JSON-only state changes), with the
  // attached cores' renderer origins besides the door's own.
  requestGuards(app, {
    hosts: 'loopback',
    allowedHosts: options.allowedHosts ?? [],
    corsOrigins: [],
    extraOrigins: options.allowedOrigins,
  });

  app.addHook('onRequest', cors(options.allowedOrigins));
  estopSocket(app, {
    machine: options.machine,
    allowedOrigins: options.allowedOrigins,
    allowedHosts: options.allowedHosts ?? [],
  });
  await app.register(healthRoute);
  await app.register(machineRoutes, {
    machine: options.machine,
    allowRemote: options.allowRemote,
    allowedRoots: options.allowedRoots,
    attachments: options.attachments,
    ...(options.profiles ? { profiles: options.profiles } : {}),
    ...(options.history ? { history: options.history } : {}),
  });
  app.post(MACHINE_PROCESS_ROUTES.release, async (request) => {
    const pid = Number((request.body as { pid?: unknown } | undefined)?.pid);
    if (Number.isSafeInteger(pid)) options.onRelease(pid);
    return { released: true };
  });
  return app;
}

/**
 * CORS for the attached cores' renderer pages: the allowed origin is echoed, a preflight is
 * answered at once (before any other hook) and may be cached for two hours, so an e-stop click
 * costs one request.
 */
function cors(allowedOrigins: () => readonly string[]) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (!origin || !allowedOrigins().includes(origin)) return;
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    if (request.method !== 'OPTIONS') return;
    await reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S))
      .send();
  };
}
