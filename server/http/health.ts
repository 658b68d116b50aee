import type { FastifyPluginAsync } from 'fastify';
import { VERSION } from '../../bridge/version.ts';

export interface Health {
  status: 'ok' | 'starting';
  version: string;
}

export interface HealthOptions {
  /**
   * False while the process behind the door is still starting (the core's doors listen before its
   * machine process is attached): /healthz then answers 503 `starting` with Retry-After, so whoever
   * waits for a 200 gets a core whose every route works.
   */
  ready?: () => boolean;
}

/** `GET /healthz` on every door: answers as long as the listener serves requests. */
export const healthRoute: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  app.get(
    '/healthz',
    // Status bars poll this every few seconds; one log line per poll would drown the log.
    { logLevel: 'warn' },
    async (_request, reply): Promise<Health> => {
      reply.header('cache-control', 'no-store');
      if (options.ready?.() === false) {
        reply.code(503).header('retry-after', '1');
        return { status: 'starting', version: VERSION };
      }
      return { status: 'ok', version: VERSION };
    },
  );
};
