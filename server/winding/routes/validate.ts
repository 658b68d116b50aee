import type { FastifyInstance } from 'fastify';
import { toHttpError } from '../../http/http-error.ts';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { validateFromFile } from '../from-file.ts';
import { PathRequest } from '../schemas.ts';

/**
 * `POST /validate/from-file`: both levels, schema and planning, so a file that validates also
 * plans. Every failure answers `{status: "error", detail}` with its status code.
 */
export async function validateRoute(app: FastifyInstance, context: WindingContext) {
  app.post(
    '/validate/from-file',
    {
      errorHandler: (error, _request, reply) => {
        const known = toHttpError(error);
        if (!known) throw error;
        return reply.code(known.status).send({ status: 'error', detail: known.message });
      },
    },
    async (request) => validateFromFile(readBody(request, PathRequest), context),
  );
}
