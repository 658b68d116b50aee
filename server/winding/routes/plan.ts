import type { FastifyInstance } from 'fastify';
import type { PlanSummary } from '../../../engine/plan/types.ts';
import { HttpError } from '../../http/http-error.ts';
import { canonicalPath, checkRequestPath } from '../../http/paths.ts';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { readWindDefinition } from '../input-file.ts';
import { defaultOutputPath } from '../output-path.ts';
import { checkOutputTarget, OutputError, planResponse, planToFile } from '../planning.ts';
import { PlanRequest } from '../schemas.ts';

/** `POST /plan/from-file`: plans a `.wind` file into `<input>.gcode` beside it (spec §7.3). */
export async function planRoute(app: FastifyInstance, { policy, planners }: WindingContext) {
  app.post('/plan/from-file', async (request) => {
    const body = readBody(request, PlanRequest);
    const input = await checkRequestPath(body.path, policy);
    // The output is checked against the roots before any file is touched.
    const output = await canonicalPath(defaultOutputPath(input));
    if (!policy.allows(output)) {
      throw new HttpError(
        403,
        `Output path '${output}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${policy.rootsText}`,
      );
    }
    return planners.run(async () => {
      const definition = await readWindDefinition(input, body.path);
      let summary: PlanSummary;
      try {
        await checkOutputTarget(input, output);
        summary = await planToFile(definition, output, {
          axisFormat: body.axis_format,
          verbose: body.verbose,
        });
      } catch (error) {
        throw error instanceof OutputError ? new HttpError(400, error.message) : error;
      }
      return planResponse(summary, output);
    });
  });
}
