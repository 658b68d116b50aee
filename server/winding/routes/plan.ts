import type { FastifyInstance } from 'fastify';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { planFromFile } from '../from-file.ts';
import { PlanRequest } from '../schemas.ts';

/** `POST /plan/from-file`: plans a `.wind` file into `<input>.gcode` beside it (spec §7.3). */
export async function planRoute(app: FastifyInstance, context: WindingContext) {
  app.post('/plan/from-file', async (request) => planFromFile(readBody(request, PlanRequest), context));
}
