import type { FastifyInstance } from 'fastify';
import { checkRequestPath, insideRoots } from '../../http/paths.ts';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { PathRequest } from '../schemas.ts';
import { simulateFile } from '../simulation.ts';

/** `POST /simulate/from-file`: streams the file through the simulator, never holding it whole. */
export async function simulateRoute(app: FastifyInstance, { policy }: WindingContext) {
  app.post('/simulate/from-file', async (request) => {
    const body = readBody(request, PathRequest);
    return simulateFile(await checkRequestPath(body.path, policy), {
      shown: body.path,
      checkLocation: insideRoots(body.path, policy),
    });
  });
}
