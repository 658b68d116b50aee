// The from-file operations of spec/winding.md §7 without the transport: the winding door's routes
// and the sidecar's MCP winding tools (server/mcp/) both run these, so both apply the same path
// policy, reading rules, output rules and atomic write, in the same order.
import { dirname } from 'node:path';
import { HttpError } from '../http/http-error.ts';
import { canonicalPath, checkRequestPath, insideRoots, type PathPolicy } from '../http/paths.ts';
import { LocationRefused } from './atomic-write.ts';
import type { WindingContext } from './context.ts';
import { readWindDefinition } from './input-file.ts';
import { defaultOutputPath } from './output-path.ts';
import { checkOutputTarget, checkPlanInSlices, planResponse, planToFile } from './planning.ts';
import type { PathRequest, PlanRequest } from './schemas.ts';
import { simulateFile } from './simulation.ts';

function outputOutsideRoots(output: string, policy: PathPolicy): HttpError {
  return new HttpError(
    403,
    `Output path '${output}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${policy.rootsText}`,
  );
}

/**
 * Plans `request.path` into `<input>.gcode` beside it (§7.3). The input rules of §7.2 come first,
 * all of them: a missing or unreadable input, or one that is not a regular file, is reported as
 * such even when its output would lie outside the roots. Only then the output rules. Both files
 * are checked again where they really are once open (through their descriptors): a folder swapped
 * for a symlink between the check and the open must not carry either out of the roots.
 */
export async function planFromFile(
  request: PlanRequest,
  { policy, planners, stopping, noteOutputFolder, threads }: WindingContext,
) {
  const input = await checkRequestPath(request.path, policy);
  if (threads) {
    return planners.run(() =>
      threads.run<ReturnType<typeof planResponse>>({ op: 'plan', request }, { stopping, noteOutputFolder }),
    );
  }
  return planners.run(async () => {
    const definition = await readWindDefinition(input, request.path, {
      checkLocation: insideRoots(request.path, policy),
    });
    const output = await canonicalPath(defaultOutputPath(input));
    if (!policy.allows(output)) throw outputOutsideRoots(output, policy);
    await checkOutputTarget(input, output);
    await noteOutputFolder?.(dirname(output));
    try {
      const summary = await planToFile(definition, output, {
        axisFormat: request.axis_format,
        verbose: request.verbose,
        signal: stopping,
        checkLocation: (real) => {
          if (!policy.allows(real)) throw new LocationRefused(real);
        },
      });
      return planResponse(summary, output);
    } catch (error) {
      throw error instanceof LocationRefused ? outputOutsideRoots(output, policy) : error;
    }
  });
}

/** Both levels, schema and planning, so a file that validates also plans. */
export async function validateFromFile(
  request: PathRequest,
  { policy, planners, stopping, threads }: WindingContext,
): Promise<{ status: 'ok'; path: string }> {
  const input = await checkRequestPath(request.path, policy);
  if (threads) return planners.run(() => threads.run({ op: 'validate', request }, { stopping }));
  await planners.run(async () =>
    checkPlanInSlices(
      await readWindDefinition(input, request.path, { checkLocation: insideRoots(request.path, policy) }),
      { signal: stopping },
    ),
  );
  return { status: 'ok' as const, path: request.path };
}

/** Streams the file through the simulator, never holding it whole. */
export async function simulateFromFile(
  request: PathRequest,
  { policy }: Pick<WindingContext, 'policy'>,
): Promise<Awaited<ReturnType<typeof simulateFile>>> {
  return simulateFile(await checkRequestPath(request.path, policy), {
    shown: request.path,
    checkLocation: insideRoots(request.path, policy),
  });
}
