// The `/internal/gateway/*` door on the LAN listener (dashboard spec §13.1): thin HTTP over the
// plain checks of checks.ts, for a gateway running outside this process. What the door adds is
// its own: the per-IP limiter and the service-token check, both before any body is read.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consumeFixedWindow, LimiterUnavailable } from '../../auth/rate-limit.ts';
import type { Services } from '../../services.ts';
import type { GatewayChecks } from './checks.ts';

export const INTERNAL_BODY_LIMIT_BYTES = 256 * 1024;

export interface InternalGatewayOptions {
  services: Services;
  checks: GatewayChecks;
  /** `GATEWAY_SERVICE_TOKEN`. */
  serviceToken: string;
}

type Body = Record<string, unknown>;

/** Which per-IP limiter a route runs before auth (§13.1); the limiter route has none. */
interface IpLimit {
  name: 'introspection' | 'revoked_tokens';
  perMinute: number;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The bearer credential of an Authorization header, or null. */
function bearerOf(header: string | undefined): string | null {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

class BadBody extends Error {
  readonly statusCode = 400;
}

export async function internalGatewayRoutes(app: FastifyInstance, options: InternalGatewayOptions) {
  const { services, checks } = options;
  const { metrics, audit, clientAddresses, tokens, store, clock, config } = services;
  // Both sides hashed to one length, so the comparison's time says nothing about the token.
  const expected = digest(options.serviceToken);

  // Only JSON objects, at most 256 KiB, counted as bytes arrive.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: INTERNAL_BODY_LIMIT_BYTES },
    (_request, text, done) => {
      try {
        const value: unknown = JSON.parse(text as string);
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          return done(new BadBody('Invalid JSON body'));
        done(null, value);
      } catch {
        done(new BadBody('Invalid JSON body'));
      }
    },
  );

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).send({ error: 'Request body too large' });
    if (error instanceof BadBody || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return reply.code(400).send({ error: 'Invalid JSON body' });
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error, url: request.url }, 'internal gateway request failed');
      return reply.code(500).send({ error: 'Internal error' });
    }
    return reply.code(status).send({ error: error.message });
  });

  // §15: these paths count in the API's request, error and latency figures.
  app.addHook('onResponse', async (_request, reply) => {
    metrics.recordRequest(reply.statusCode >= 400, reply.elapsedTime);
  });

  const limitIp = (limit: IpLimit) => async (request: FastifyRequest, reply: FastifyReply) => {
    const ip = clientAddresses.of(request).ip;
    const keyHash = tokens.hash('limiter', `gateway:${limit.name}:ip:${ip}`);
    try {
      const result = consumeFixedWindow(store, clock, keyHash, limit.perMinute);
      if (result.allowed) return;
      if (result.firstRefusal)
        audit.record({
          actorUserId: null,
          action: `gateway.${limit.name}.rate_limited`,
          targetType: 'limiter',
          targetId: null,
          metadata: { ip },
        });
      return reply.code(429).send({ error: 'Too many requests', retryAfterMs: result.retryAfterMs });
    } catch (error) {
      if (!(error instanceof LimiterUnavailable)) throw error;
      audit.record({
        actorUserId: null,
        action: `gateway.${limit.name}.limiter_unavailable`,
        targetType: 'limiter',
        targetId: null,
        metadata: { ip },
      });
      return reply.code(503).send({ error: 'Security limiter unavailable' });
    }
  };

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = bearerOf(request.headers.authorization);
    if (presented !== null && timingSafeEqual(digest(presented), expected)) return;
    metrics.authFailureCount += 1;
    return reply.code(401).send({ error: 'Unauthorized' });
  };

  const post = (
    url: string,
    ipLimit: IpLimit | null,
    handle: (body: Body) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown },
  ) => {
    app.route({
      url,
      method: 'POST',
      bodyLimit: INTERNAL_BODY_LIMIT_BYTES,
      // Limiter, then auth, both before the body is read: a flood or a stranger costs no parsing.
      onRequest: ipLimit ? [limitIp(ipLimit), authenticate] : [authenticate],
      handler: async (request, reply) => {
        const answer = await handle((request.body ?? {}) as Body);
        return reply.code(answer.status).send(answer.body);
      },
    });
    app.route({
      url,
      method: ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      handler: async (_request, reply) =>
        reply.code(405).header('allow', 'POST').send({ error: 'Method not allowed' }),
    });
  };

  post(
    '/internal/gateway/datasource-introspect',
    { name: 'introspection', perMinute: config.gateway.introspectionPerMinute },
    (body) => {
      const { sessionToken, dashboardId, datasourceId } = body;
      if (typeof sessionToken !== 'string' || sessionToken === '')
        return { status: 400, body: { error: 'sessionToken is required' } };
      return checks.introspect({
        sessionToken,
        ...(dashboardId !== undefined ? { dashboardId: dashboardId as string } : {}),
        ...(datasourceId !== undefined ? { datasourceId: datasourceId as string } : {}),
      });
    },
  );
  post(
    '/internal/gateway/revoked-tokens',
    { name: 'revoked_tokens', perMinute: config.gateway.revokedTokensPerMinute },
    (body) => checks.revokedTokens({ sinceCursor: body.sinceCursor, limit: body.limit }),
  );
  post('/internal/gateway/rate-limit/consume', null, (body) =>
    checks.consumeRateLimit({ scope: body.scope, key: body.key, limitPerMinute: body.limitPerMinute }),
  );
}

/** The door as the LAN listener mounts it, encapsulated so its body parser stays its own. */
export function internalGatewayDoor(options: InternalGatewayOptions) {
  return async (app: FastifyInstance) => {
    await app.register(internalGatewayRoutes, options);
  };
}
