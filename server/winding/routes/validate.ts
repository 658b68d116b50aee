import type { FastifyInstance } from 'fastify';
import { toHttpError } from '../../http/http-error.ts';
import { checkRequestPath, insideRoots } from '../../http/paths.ts';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { readWindDefinition } from '../input-file.ts';
import { checkPlanInSlices } from '../planning.ts';
import { PathRequest } from '../schemas.ts';

/**
 * `POST /validate/from-file`: both levels, schema and planning, so a file that validates also
 * plans. Every failure answers `{status: "error", detail}` with its status code.
 */
export async function validateRoute(app: FastifyInstance, { policy, planners, stopping }: WindingContext) {
  app.post(
    '/validate/from-file',
    {
      errorHandler: (error, _request, reply) => {
        const known = toHttpError(error);
        if (!known) throw error;
        return reply.code(known.status).send({ status: 'error', detail: known.message });
      },
    },
    async (request) => {
      const body = readBody(request, PathRequest);
      const input = await checkRequestPath(body.path, policy);
      await planners.run(async () =>
        checkPlanInSlices(
          await readWindDefinition(input, body.path, { checkLocation: insideRoots(body.path, policy) }),
          { signal: stopping },
        ),
      );
      return { status: 'ok', path: body.path };
    },
  );
}
