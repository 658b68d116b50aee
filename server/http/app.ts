import fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from '../log.ts';

/** Largest request body any door accepts (the winding spec's limit). */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** A door's own answer for errors it knows; `undefined` leaves the error to the shared rules. */
export type ErrorMapper = (error: unknown) => { status: number; body: unknown } | undefined;

/**
 * A fastify instance with the behaviour every door shares: JSON `{detail}` errors, no stack traces
 * or internal messages leaked to clients, and one logger. A door with its own error contract (the
 * winding door's spec statuses) passes `mapError`, consulted first.
 */
export function createHttpApp(logger: Logger, door: string, mapError?: ErrorMapper): FastifyInstance {
  const app = fastify({
    loggerInstance: logger.child({ door }),
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    return503OnClosing: true,
  }) as unknown as FastifyInstance;

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapError?.(error);
    if (mapped) return reply.code(mapped.status).send(mapped.body);
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error, url: request.url }, 'request failed');
      return reply.code(status).send({ detail: 'Internal server error' });
    }
    return reply.code(status).send({ detail: error.message });
  });

  return app;
}

/** The 404 every door gives for an unknown route; the LAN door falls back to it for non-page requests. */
export function notFound(request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({ detail: `Route ${request.method} ${request.url.split('?')[0]} not found` });
}
