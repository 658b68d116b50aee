import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.ts';
import { readWindDefinition } from './input-file.ts';
import { planResponse, planToFile } from './planning.ts';
import { simulateFile } from './simulation.ts';

export interface Examples {
  /** A real `.wind` file (FiberPath's simple_cylinder example) the docs' "Try it out" can plan. */
  wind: string;
  /** Its plan, for simulate. */
  gcode: string;
  /** A small complete program (the conf_valid_skip reference output) for stream's dry run. */
  program: string;
  /** What the routes answer for these examples, shown as response examples in the docs. */
  responses: { plan?: unknown; simulate?: unknown };
}

const PROGRAM = [
  '; Parameters {"mandrel":{"diameter":70,"windLength":500},"tow":{"width":7,"thickness":0.5}}',
  'G0 X0 A0 B0',
  'G0 F9000',
  '; Layer 1 of 1: skip',
  'G0 X0 A45 B0',
  'G92 A0',
  '',
].join('\n');

/**
 * Puts the example files under `<data dir>/examples/` (inside the default allowed roots), so the
 * documentation's request examples name files that exist and can be tried as they are.
 */
export async function prepareExamples(
  dataDir: string,
  resourcesDir: string,
  logger: Logger,
): Promise<Examples> {
  const folder = join(dataDir, 'examples');
  const wind = join(folder, 'simple-cylinder.wind');
  const gcode = join(folder, 'simple-cylinder.gcode');
  const responses: Examples['responses'] = {};
  try {
    await mkdir(folder, { recursive: true });
    if (!(await exists(wind))) await copyFile(join(resourcesDir, 'examples', 'simple-cylinder.wind'), wind);
    const summary = await planToFile(await readWindDefinition(wind), gcode);
    responses.plan = planResponse(summary, gcode);
    responses.simulate = await simulateFile(gcode);
  } catch (error) {
    // The door works without them; only the documentation's examples would not run as they are.
    logger.warn({ err: error, folder }, 'could not prepare the winding examples');
  }
  return { wind, gcode, program: PROGRAM, responses };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
