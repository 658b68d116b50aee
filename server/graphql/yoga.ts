import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, Source } from 'graphql';
import {
  createGraphQLError,
  createSchema,
  createYoga,
  type Plugin,
  type YogaServerInstance,
} from 'graphql-yoga';
import { resolvePrincipal, type ServiceAccountAuthenticator } from '../auth/principal.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Services } from '../services.ts';
import { applyAuthorization } from './authorization.ts';
import type { RequestContext } from './context.ts';
import { boundedParserCaches, checkDocument, operationLimitsRule } from './limits.ts';
import * as audit from './modules/audit.ts';
import * as core from './modules/core.ts';
import * as dashboards from './modules/dashboards.ts';
import * as invites from './modules/invites.ts';
import * as metrics from './modules/metrics.ts';
import * as passwordResets from './modules/password-resets.ts';
import * as policy from './modules/policy.ts';
import * as profiles from './modules/profiles.ts';
import * as serviceAccounts from './modules/service-accounts.ts';
import * as users from './modules/users.ts';
import { useStoredReadCache } from './read-cache.ts';
import { createGraphqlStream } from './stream.ts';

/** The X-Forwarded-For mismatch warning is logged at most this often. */

/** Largest GraphQL request body (§4), counted as bytes arrive. */
export const GRAPHQL_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

// Schema-first, one module per area.
export const MODULES = [
  core,
  policy,
  users,
  invites,
  passwordResets,
  audit,
  metrics,
  dashboards,
  profiles,
  serviceAccounts,
];

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

// Set by the result processor so the metrics hook can count "a GraphQL response with ≥ 1 error".
const HAD_ERRORS = Symbol('towpath.graphqlErrors');
type MarkedRequest = FastifyRequest & { [HAD_ERRORS]?: boolean };

/** The executable schema, every root field behind its rule in the authorisation table. */
export function buildSchema() {
  return applyAuthorization(
    createSchema<ServerContext & RequestContext>({
      typeDefs: MODULES.map((module) => module.typeDefs),
      resolvers: MODULES.map((module) => module.resolvers),
    }),
  );
}

function useOperationLimits(): Plugin {
  return {
    // Before yoga's parse cache sees the text: a refused document is neither parsed nor cached.
    onParams({ params, setResult }) {
      if (typeof params.query !== 'string') return;
      const rejection = checkDocument(params.query);
      if (!rejection) return;
      const http = rejection.status ? { http: { status: rejection.status } } : {};
      // Pointing where the validation rule would, so the answer is the one it would give.
      const at =
        rejection.position === undefined
          ? {}
          : { source: new Source(params.query), positions: [rejection.position] };
      // yoga's own error type: it reads the status from `http` and strips it from the answer.
      setResult({
        errors: [
          createGraphQLError(rejection.message, { ...at, extensions: { code: rejection.code, ...http } }),
        ],
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(operationLimitsRule);
    },
  };
}

function useErrorMarker(): Plugin<ServerContext> {
  return {
    // Sees every result, including parse and validation failures that never execute.
    onResultProcess({ result, serverContext }) {
      const single = Array.isArray(result) ? undefined : result;
      const errors = single && 'errors' in single ? single.errors : undefined;
      if (errors && errors.length > 0)
        ((serverContext as unknown as ServerContext).req as MarkedRequest)[HAD_ERRORS] = true;
    },
  };
}

function yogaLogger(logger: Logger) {
  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const error = args.find((arg) => arg instanceof Error);
      const text = args.filter((arg) => typeof arg === 'string').join(' ');
      if (error) logger[level]({ err: error }, text || 'graphql');
      else logger[level](text || 'graphql');
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

// By name rather than `instanceof`: graphql can be loaded twice (ESM and CJS builds) in one process.
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

/**
 * §4: resolver errors are GraphQLErrors carrying a code and pass through; anything else thrown is
 * logged in full and reaches the client only as "Unexpected error.".
 */
export function maskError(logger: Logger) {
  return (error: unknown): Error => {
    if (isGraphQLError(error)) {
      const original = error.originalError;
      if (!original || isGraphQLError(original)) return error;
      // The services' outcomes (§4 codes and messages), mapped here in one place.
      if (original instanceof ServiceError)
        return new GraphQLError(original.message, {
          nodes: error.nodes,
          path: error.path,
          extensions: { code: original.code, ...original.extensions },
        });
      logger.error({ err: original, path: error.path }, 'unexpected error in a GraphQL operation');
      return new GraphQLError('Unexpected error.', {
        nodes: error.nodes,
        path: error.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
    }
    logger.error({ err: error }, 'unexpected error in GraphQL handling');
    return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}

/** Who is calling and from where; built once per request (and per SSE subscription). */
// §5.6: a client decides what X-Forwarded-For says, so the mismatch warning is rate-limited; one
// limiter per workstation, shared by every GraphQL route.

export async function requestContext(
  services: Services,
  serviceAccounts: ServiceAccountAuthenticator,
  req: FastifyRequest,
): Promise<RequestContext> {
  const { principal, rejected } = await resolvePrincipal(req.headers.authorization, {
    sessions: services.sessions,
    store: services.store,
    serviceAccounts,
  });
  if (rejected) services.metrics.authFailureCount += 1;
  return {
    services,
    principal,
    clientIp: services.clientAddresses.of(req).ip,
    socketAddress: req.socket.remoteAddress,
  };
}

export function createGraphqlServer(
  services: Services,
  serviceAccounts: ServiceAccountAuthenticator,
): YogaServerInstance<ServerContext, RequestContext> {
  const { config, logger } = services;
  const caches = boundedParserCaches();
  return createYoga<ServerContext, RequestContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    graphiql: config.graphiql,
    batching: false,
    // fastify's route already refuses bodies over GRAPHQL_BODY_LIMIT_BYTES as they arrive (413);
    // yoga's own limit would pipe every body through one more stream (a third of a trivial request).
    maxRequestBodySize: false,
    parserAndValidationCache: caches.options,
    cors:
      config.corsOrigins.length > 0
        ? {
            origin: config.corsOrigins,
            allowedHeaders: ['Authorization', 'Content-Type'],
            credentials: false,
          }
        : false,
    maskedErrors: { maskError: maskError(logger), errorMessage: 'Unexpected error.' },
    logging: yogaLogger(logger),
    plugins: [useOperationLimits(), caches.validation, useStoredReadCache(services.store), useErrorMarker()],
    context: ({ req }) => requestContext(services, serviceAccounts, req),
  });
}

function flatHeaders(headers: FastifyRequest['headers']): [string, string][] {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined
      ? []
      : Array.isArray(value)
        ? value.map((v): [string, string] => [name, v])
        : [[name, value]],
  );
}

/**
 * Mounts yoga on a fastify instance: `/graphql` (and `/health`). Registered as an encapsulated
 * plugin so its body parser, body limit and error handler apply to GraphQL only.
 */
export function graphqlRoutes(
  yoga: YogaServerInstance<ServerContext, RequestContext>,
  services: Services,
  stream?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
) {
  return async (app: FastifyInstance) => {
    // Yoga parses bodies itself (JSON, GraphQL over HTTP media types); fastify only buffers them, up
    // to the limit, so a bad or unusual body gets yoga's standard answer instead of fastify's.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: GRAPHQL_BODY_LIMIT_BYTES },
      (_req, body, done) => done(null, (body as Buffer).length === 0 ? undefined : body),
    );

    app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply
          .code(413)
          .type('application/json; charset=utf-8')
          .send({
            errors: [{ message: 'Request body too large', extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
          });
      }
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) request.log.error({ err: error }, 'GraphQL request failed');
      return reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send({
          errors: [
            status === 500
              ? { message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }
              : { message: error.message },
          ],
        });
    });

    app.addHook('onResponse', async (request, reply) => {
      if (request.routeOptions.url === '/health') return;
      const failed = reply.statusCode >= 400 || (request as MarkedRequest)[HAD_ERRORS] === true;
      services.metrics.recordRequest(failed, reply.elapsedTime);
    });

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Yoga gets a fetch Request built here from the buffered body, not fastify's request: its
      // Node adapter looks for a parsed body with `Object.keys(body)`, which on a Buffer lists every
      // byte (a 4 MB body cost 0.4-0.8 s and a few hundred MB of garbage before anything was
      // checked). A bodiless POST gets an explicit empty body (whatwg-node would wait for the stream
      // fastify already drained) and yoga's usual 400.
      const bodiless = request.method === 'GET' || request.method === 'HEAD';
      // Ends a subscription's event stream when its client goes away.
      const closed = new AbortController();
      reply.raw.once('close', () => closed.abort());
      // Yoga reads only the path and query of the URL; the client's Host header is no part of it, so
      // one that is not a valid host name (`a b`, `[bad`) cannot make the URL unparsable (a 500).
      const response = await yoga.fetch(
        `http://graphql.invalid${request.url}`,
        {
          method: request.method,
          headers: flatHeaders(request.headers),
          body: bodiless ? undefined : ((request.body as BodyInit | undefined) ?? ''),
          signal: closed.signal,
        },
        { req: request, reply },
      );
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      // Event streams (subscriptions) must flow; every other answer is small and complete, and
      // sending it as one buffer spares a stream pipeline per request.
      if (response.headers.get('content-type')?.includes('text/event-stream'))
        return reply.send(response.body);
      return reply.send(Buffer.from(await response.arrayBuffer()));
    };

    app.route({
      url: '/graphql',
      method: ['GET', 'POST', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'],
      bodyLimit: GRAPHQL_BODY_LIMIT_BYTES,
      handler,
    });
    app.route({ url: '/health', method: ['GET'], logLevel: 'warn', handler });
    if (stream)
      app.route({
        url: '/graphql/stream',
        method: ['GET', 'POST', 'PUT', 'DELETE'],
        bodyLimit: GRAPHQL_BODY_LIMIT_BYTES,
        handler: stream,
      });
  };
}

/**
 * The dashboard GraphQL API for the LAN door over one workstation's services: `/graphql` (with
 * `/graphql/stream`) and `/health`. Service accounts authenticate through their service unless a
 * test hands in its own authenticator.
 */
export function graphqlDoor(services: Services, serviceAccounts?: ServiceAccountAuthenticator) {
  const authenticate: ServiceAccountAuthenticator =
    serviceAccounts ?? (async (id, secret) => services.serviceAccounts.authenticate(id, secret));
  const yoga = createGraphqlServer(services, authenticate);
  const routes = graphqlRoutes(yoga, services, createGraphqlStream(yoga));
  return async (app: FastifyInstance) => {
    await app.register(routes);
  };
}
