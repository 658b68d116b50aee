import { dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { PlanSummary } from '../../../engine/plan/types.ts';
import { HttpError } from '../../http/http-error.ts';
import { canonicalPath, checkRequestPath, insideRoots, type PathPolicy } from '../../http/paths.ts';
import { LocationRefused } from '../atomic-write.ts';
import { readBody } from '../body.ts';
import type { WindingContext } from '../context.ts';
import { readWindDefinition } from '../input-file.ts';
import { defaultOutputPath } from '../output-path.ts';
import { checkOutputTarget, OutputError, planResponse, planToFile } from '../planning.ts';
import { PlanRequest } from '../schemas.ts';

function outsideRoots(output: string, policy: PathPolicy): HttpError {
  return new HttpError(
    403,
    `Output path '${output}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${policy.rootsText}`,
  );
}

/** `POST /plan/from-file`: plans a `.wind` file into `<input>.gcode` beside it (spec §7.3). */
export async function planRoute(
  app: FastifyInstance,
  { policy, planners, stopping, noteOutputFolder }: WindingContext,
) {
  app.post('/plan/from-file', async (request) => {
    const body = readBody(request, PlanRequest);
    const input = await checkRequestPath(body.path, policy);
    // The output is checked against the roots before any file is touched, and then again, through
    // the open file, wherever a folder swapped for a symlink may have taken it since (§7.3).
    const output = await canonicalPath(defaultOutputPath(input));
    if (!policy.allows(output)) throw outsideRoots(output, policy);
    return planners.run(async () => {
      const definition = await readWindDefinition(input, body.path, {
        checkLocation: insideRoots(body.path, policy),
      });
      let summary: PlanSummary;
      try {
        await checkOutputTarget(input, output);
        await noteOutputFolder(dirname(output));
        summary = await planToFile(definition, output, {
          axisFormat: body.axis_format,
          verbose: body.verbose,
          signal: stopping,
          checkLocation: (real) => {
            if (!policy.allows(real)) throw new LocationRefused(real);
          },
        });
      } catch (error) {
        if (error instanceof LocationRefused) throw outsideRoots(output, policy);
        throw error instanceof OutputError ? new HttpError(400, error.message) : error;
      }
      return planResponse(summary, output);
    });
  });
}
