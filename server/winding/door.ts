import type { FastifyInstance } from 'fastify';
import { createHttpApp, type HttpTimeouts } from '../http/app.ts';
import { requestGuards } from '../http/guards.ts';
import { healthRoute } from '../http/health.ts';
import { toHttpError } from '../http/http-error.ts';
import { createPathPolicy } from '../http/paths.ts';
import type { Logger } from '../log.ts';
import type { MachineLink } from '../machine/link.ts';
import { acceptRawBodies } from './body.ts';
import type { WindingContext } from './context.ts';
import { prepareExamples } from './examples.ts';
import { buildOpenApi } from './openapi.ts';
import type { OutputFolders } from './output-folders.ts';
import { PlannerThreads } from './planner-threads.ts';
import { docsRoutes } from './routes/docs.ts';
import { planRoute } from './routes/plan.ts';
import { simulateRoute } from './routes/simulate.ts';
import { streamRoute } from './routes/stream.ts';
import { validateRoute } from './routes/validate.ts';
import { Slots } from './slots.ts';

export interface WindingDoorOptions {
  logger: Logger;
  dataDir: string;
  resourcesDir: string;
  /** WINDING_ALLOWED_ROOTS as configured (canonicalised here, at each start). */
  allowedRoots: string[];
  /** The machine process (through the core's link to it), for live `/stream/` runs. */
  machine: Pick<MachineLink, 'stream'>;
  /** The record of folders plans are written to (start-up cleans their stale temporary files). */
  outputFolders: OutputFolders;
  /** `ALLOWED_HOSTS`: names besides the loopback ones this door answers to. */
  allowedHosts?: readonly string[];
  /** `CORS_ORIGINS`: origins besides the door's own that may post to it. */
  corsOrigins?: readonly string[];
  /** Tests shorten the client timeouts; the defaults otherwise. */
  timeouts?: HttpTimeouts;
  /** False while the core is still starting: /healthz answers 503 (health.ts). */
  ready?: () => boolean;
}

/** Every method fastify routes; a known path answers the ones it does not serve with 405. */
const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/** The winding door: the loopback HTTP service for headless automation (spec/winding.md §7). */
export async function buildWindingDoor(options: WindingDoorOptions): Promise<FastifyInstance> {
  const app = createHttpApp(
    options.logger,
    'winding',
    (error) => {
      const known = toHttpError(error);
      return known && { status: known.status, body: { detail: known.message } };
    },
    options.timeouts,
  );
  // Closing the door (a stop, SIGTERM) aborts every plan at its next slice rather than finishing
  // a file nobody will receive.
  const stopping = new AbortController();
  app.addHook('preClose', (done) => {
    stopping.abort(new Error('the server is stopping'));
    done();
  });
  const threads = new PlannerThreads(options.allowedRoots);
  app.addHook('onClose', async () => threads.close());
  const context: WindingContext = {
    policy: await createPathPolicy(options.allowedRoots),
    planners: new Slots(4),
    stopping: stopping.signal,
    noteOutputFolder: (folder) => options.outputFolders.note(folder),
    threads,
  };
  const examples = await prepareExamples(options.dataDir, options.resourcesDir, options.logger);

  // Every route reads files or moves the machine: loopback Host names only, own origin only. A
  // wrong content type is answered by the routes themselves with the spec's 400 (winding §7.1).
  requestGuards(app, {
    hosts: 'loopback',
    allowedHosts: options.allowedHosts ?? [],
    corsOrigins: options.corsOrigins ?? [],
    requireJson: false,
  });
  acceptRawBodies(app);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));

  await app.register(healthRoute, { ready: options.ready });
  await app.register(planRoute, context);
  await app.register(simulateRoute, context);
  await app.register(validateRoute, context);
  await app.register(streamRoute, { machine: options.machine });
  await app.register(docsRoutes, { document: buildOpenApi(examples) });

  const served: Record<string, string[]> = {
    '/plan/from-file': ['POST'],
    '/simulate/from-file': ['POST'],
    '/validate/from-file': ['POST'],
    '/stream/': ['POST'],
    '/stream': ['POST'],
    '/openapi.json': ['GET', 'HEAD'],
    '/docs': ['GET', 'HEAD'],
  };
  for (const [url, methods] of Object.entries(served)) {
    const others = METHODS.filter((method) => !methods.includes(method));
    app.route({
      method: others,
      url,
      handler: async (_request, reply) => reply.code(405).send({ detail: 'Method Not Allowed' }),
    });
  }
  return app;
}
