import type { FastifyPluginAsync } from 'fastify';
import { VERSION } from '../version.ts';

export interface Health {
  status: 'ok';
  version: string;
}

/** `GET /healthz` on every door: answers as long as the listener serves requests. */
export const healthRoute: FastifyPluginAsync = async (app) => {
  app.get(
    '/healthz',
    // Status bars poll this every few seconds; one log line per poll would drown the log.
    { logLevel: 'warn' },
    async (_request, reply): Promise<Health> => {
      reply.header('cache-control', 'no-store');
      return { status: 'ok', version: VERSION };
    },
  );
};
