import type { FastifyInstance } from 'fastify';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { simulateFromFile } from '../from-file.ts';
import { PathRequest } from '../schemas.ts';

/** `POST /simulate/from-file`: streams the file through the simulator, never holding it whole. */
export async function simulateRoute(app: FastifyInstance, context: WindingContext) {
  app.post('/simulate/from-file', async (request) =>
    simulateFromFile(readBody(request, PathRequest), context),
  );
}
