import type { FastifyInstance } from 'fastify';
import { createHttpApp, notFound } from '../http/app.ts';
import { healthRoute } from '../http/health.ts';
import type { Logger } from '../log.ts';

/** The winding door: the loopback HTTP service for headless automation (spec/winding.md §7). */
export async function buildWindingDoor({ logger }: { logger: Logger }): Promise<FastifyInstance> {
  const app = createHttpApp(logger, 'winding');
  await app.register(healthRoute);
  app.setNotFoundHandler(notFound);
  return app;
}
