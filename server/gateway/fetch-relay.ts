// `POST /gateway/http/fetch` (gateway spec §2): an `http` datasource's one request, made by the
// workstation with the credentials applied server-side. The session token travels only in the body;
// the caller's own headers and cookies never reach the upstream.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Now } from '../clock.ts';
import type { Logger } from '../log.ts';
import { EgressError, portOf, type Resolver, resolveUpstream } from './egress.ts';
import type { EgressRefusals } from './egress-audit.ts';
import type { IntrospectionDeps } from './internal/introspect.ts';
import type { GatewayMetrics } from './metrics.ts';
import { introspect, unverifiedClaims } from './realtime/authorise.ts';
import type { GatewaySettings } from './settings.ts';
import { FetchFailure, type FetchResult, fetchUpstream } from './upstreams/http.ts';

export const FETCH_PATH = '/gateway/http/fetch';
const FETCH_BODY_LIMIT = 16 * 1024;
const WINDOW_MS = 60_000;

export interface FetchRelayOptions {
  settings: GatewaySettings;
  introspection: IntrospectionDeps;
  metrics: GatewayMetrics;
  egressRefusals: EgressRefusals;
  clock: Now;
  logger: Logger;
  resolver?: Resolver;
}

/** §2.1 check 6: per token `jti`, in memory, fixed 60 s windows. */
class TokenWindows {
  readonly #windows = new Map<string, { start: number; hits: number }>();

  consume(jti: string, limit: number, now: number): number {
    if (this.#windows.size > 10_000)
      for (const [key, window] of this.#windows)
        if (now - window.start >= WINDOW_MS) this.#windows.delete(key);
    let window = this.#windows.get(jti);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, hits: 0 };
      this.#windows.set(jti, window);
    }
    window.hits += 1;
    return window.hits <= limit ? 0 : window.start + WINDOW_MS - now;
  }
}

export async function fetchRelayRoutes(app: FastifyInstance, options: FetchRelayOptions): Promise<void> {
  const { settings, metrics } = options;
  const windows = new TokenWindows();
  // Concurrent GETs of one intent with one credential share the upstream request (single flight).
  const inFlight = new Map<string, Promise<FetchResult>>();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FETCH_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  const send = (reply: FastifyReply, status: number, error: string, extra: Record<string, unknown> = {}) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .send({ error, ...extra });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, 413, 'Request body too large');
    if (error.statusCode !== undefined && error.statusCode < 500)
      return send(reply, 400, 'Invalid JSON body');
    options.logger.error({ err: error }, 'gateway fetch failed');
    return send(reply, 500, 'Internal error');
  });
  app.addHook('onResponse', async (_request, reply) => {
    metrics.recordFetch(reply.statusCode, reply.elapsedTime);
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: FETCH_PATH,
    handler: async (request, reply) => {
      if (!settings.enabled) return send(reply, 404, 'Not found');
      if (request.method !== 'POST') return send(reply.header('allow', 'POST'), 405, 'Method not allowed');
      let body: unknown;
      try {
        body = JSON.parse((request.body as Buffer | undefined)?.toString('utf8') ?? '');
      } catch {
        return send(reply, 400, 'Invalid JSON body');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return send(reply, 400, 'Invalid JSON body');
      const { sessionToken, dashboardId, datasourceId } = body as Record<string, unknown>;
      if (typeof sessionToken !== 'string' || sessionToken === '')
        return send(reply, 400, 'sessionToken is required');
      const answer = await introspect(
        options.introspection,
        sessionToken,
        typeof dashboardId === 'string' ? dashboardId : undefined,
        typeof datasourceId === 'string' ? datasourceId : undefined,
      );
      if ('error' in answer) return send(reply, answer.status, answer.error);
      if (answer.scope !== 'datasource:fetch') return send(reply, 403, 'Token scope does not allow fetch');
      const claims = unverifiedClaims(sessionToken);
      const retryAfterMs = windows.consume(
        claims?.jti ?? sessionToken,
        settings.fetchPerTokenPerMinute,
        options.clock(),
      );
      if (retryAfterMs > 0)
        return send(
          reply.header('retry-after', String(Math.ceil(retryAfterMs / 1000))),
          429,
          'Too many fetch requests for this token',
          {
            retryAfterMs,
          },
        );
      const intent = answer.intent;
      const url = new URL(String(intent.url));
      let result: FetchResult;
      try {
        const [address] = await resolveUpstream(settings.egress, url.hostname, portOf(url), options.resolver);
        const method = String(intent.method ?? 'GET').toUpperCase();
        const key = `${claims?.intentHash} ${claims?.credentialProfileId}`;
        const shared = method === 'GET' ? inFlight.get(key) : undefined;
        const pending =
          shared ?? fetchUpstream(intent, address as NonNullable<typeof address>, settings.fetchMaxBytes);
        if (method === 'GET' && !shared) {
          inFlight.set(key, pending);
          pending.then(
            () => inFlight.delete(key),
            () => inFlight.delete(key),
          );
        }
        result = await pending;
      } catch (error) {
        if (error instanceof EgressError) {
          if (error.failure !== 'unresolved')
            options.egressRefusals.record(error, claims?.dashboardId, claims?.datasourceId);
          return send(reply, error.failure === 'unresolved' ? 502 : 403, error.message);
        }
        if (error instanceof FetchFailure) return send(reply, error.status, error.message, error.extra);
        throw error;
      }
      options.logger.debug(
        {
          event: 'gateway.fetch',
          dashboardId: claims?.dashboardId,
          datasourceId: claims?.datasourceId,
          status: 200,
          upstreamStatus: result.status,
          bytes: result.bytes,
          durationMs: result.durationMs,
        },
        'gateway.fetch',
      );
      return reply.header('cache-control', 'no-store').send({
        dashboardId: claims?.dashboardId,
        datasourceId: claims?.datasourceId,
        status: result.status,
        headers: result.headers,
        parser: intent.parser ?? 'json',
        body: result.body,
        bytes: result.bytes,
        fetchedAt: new Date().toISOString(),
        durationMs: result.durationMs,
      });
    },
  });
}
