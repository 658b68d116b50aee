// `/graphql/stream`: the graphql-sse protocol (distinct and single-connection modes) beside yoga's own
// SSE on `/graphql` (§2). Operations run through yoga's enveloped pipeline (its schema, graphql
// instance, context, operation limits and error masking), so both transports send identical events.
import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import type { RequestParams } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fastify';
import type { YogaServerInstance } from 'graphql-yoga';
import type { RequestContext } from './context.ts';
import { checkDocument } from './limits.ts';

export type StreamHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

type Enveloped = ExecutionArgs & {
  run: (args: ExecutionArgs) => unknown;
};

/**
 * A document refused before it runs, answered as JSON with a status and each error's code. graphql-sse
 * takes an array from onSubscribe as the whole response; an object without `data` would be taken
 * for execution arguments (and answered "Unable to detect operation AST").
 */
function refusal(status: number, errors: { message: string; code: string }[]) {
  const body = { errors: errors.map(({ message, code }) => ({ message, extensions: { code } })) };
  return [
    JSON.stringify(body),
    {
      status,
      statusText: STATUS_CODES[status] ?? 'Bad Request',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
  ] as const;
}

// biome-ignore lint/suspicious/noExplicitAny: yoga's server context is the fastify request pair.
export function createGraphqlStream(yoga: YogaServerInstance<any, RequestContext>): StreamHandler {
  const handler = createHandler({
    // The enveloped execute/subscribe travel in the arguments built by onSubscribe.
    execute: (args) => (args as unknown as Enveloped).run(args) as ExecutionResult,
    subscribe: (args) => (args as unknown as Enveloped).run(args) as AsyncIterable<ExecutionResult>,
    onSubscribe: (async (
      req: { raw: FastifyRequest; context: { reply: FastifyReply } },
      params: RequestParams,
    ) => {
      const fastifyRequest = req.raw;
      const { reply } = req.context;
      // The same request-level limits as /graphql, before the text is parsed or cached.
      const rejection = typeof params.query === 'string' ? checkDocument(params.query) : undefined;
      if (rejection)
        return refusal(rejection.status ?? 400, [{ message: rejection.message, code: rejection.code }]);
      const enveloped = yoga.getEnveloped({ req: fastifyRequest, reply, params });
      let document: DocumentNode;
      try {
        document = enveloped.parse(params.query);
      } catch (error) {
        return refusal(400, [{ message: (error as Error).message, code: 'GRAPHQL_PARSE_FAILED' }]);
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0)
        return refusal(
          400,
          errors.map((error: GraphQLError) => ({
            message: error.message,
            code: 'GRAPHQL_VALIDATION_FAILED',
          })),
        );
      const contextValue = await enveloped.contextFactory();
      const isSubscription = document.definitions.some(
        (definition) => definition.kind === 'OperationDefinition' && definition.operation === 'subscription',
      );
      const args: Enveloped = {
        schema: enveloped.schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue,
        run: isSubscription ? enveloped.subscribe : enveloped.execute,
      };
      return args;
      // The handler's types cannot express arguments carrying their own execute function.
    }) as never,
  });
  return async (request, reply) => {
    // The shared parser hands bodies over as buffers; graphql-sse reads strings or parsed objects.
    if (Buffer.isBuffer(request.body)) request.body = request.body.toString('utf8');
    await handler(request, reply);
  };
}
