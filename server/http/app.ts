import fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from '../log.ts';

/** Largest request body any door accepts (the winding spec's limit). */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** How long a door waits on a client, so a slow or stuck one cannot hold a socket for ever. */
export interface HttpTimeouts {
  /** Whole request, headers and body: a body trickling in or never finished gets 408. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
  /** How often Node looks for requests past their time (its default, 30 s, would double the wait). */
  checkIntervalMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, keepAliveMs: 5_000, checkIntervalMs: 1_000 };

/** A door's own answer for errors it knows; `undefined` leaves the error to the shared rules. */
export type ErrorMapper = (error: unknown) => { status: number; body: unknown } | undefined;

/**
 * A fastify instance with the behaviour every door shares: JSON `{detail}` errors, no stack traces
 * or internal messages leaked to clients, and one logger. A door with its own error contract (the
 * winding door's spec statuses) passes `mapError`, consulted first.
 */
export function createHttpApp(
  logger: Logger,
  door: string,
  mapError?: ErrorMapper,
  timeouts: HttpTimeouts = HTTP_TIMEOUTS,
): FastifyInstance {
  const app = fastify({
    loggerInstance: logger.child({ door }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node stops checking request times altogether while its headers timeout (60 s) exceeds the
    // request timeout, so both are set.
    http: { connectionsCheckingInterval: timeouts.checkIntervalMs, headersTimeout: timeouts.requestMs },
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
