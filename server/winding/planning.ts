// Running the planner inside the server process: in slices, so the event loop keeps answering
// (health polls, an e-stop on the LAN door) while a long program is planned, and into a file
// written atomically.
import { stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PlanningError } from '../../engine/errors.ts';
import { planChunks } from '../../engine/plan/index.ts';
import type { PlanOptions, PlanSummary } from '../../engine/plan/types.ts';
import type { WindDefinition } from '../../engine/wind/types.ts';
import { LocationRefused, writeFileAtomically } from './atomic-write.ts';
import { osErrorReason } from './input-file.ts';

/** Longest stretch of planning between two turns of the event loop. */
const SLICE_MS = 8;
const NEWLINE = 0x0a;

/** The output file could not be written; the message is the spec's `Could not write G-code to …`. */
export class OutputError extends Error {
  override name = 'OutputError';
}

export interface PlanRunOptions extends PlanOptions {
  /** Called after each chunk with the number of lines written so far. */
  onProgress?: (lines: number) => void;
  /** Stops planning at the next slice (the server stopping); the run then fails with the reason. */
  signal?: AbortSignal;
}

/** Drives the planner to the end, handing each chunk to `sink` and yielding to the event loop. */
async function drive(
  definition: WindDefinition,
  options: PlanRunOptions,
  sink: (chunk: Uint8Array) => void,
): Promise<PlanSummary> {
  options.signal?.throwIfAborted();
  const chunks = planChunks(definition, options);
  let sliceStart = performance.now();
  let lines = 0;
  for (;;) {
    const next = chunks.next();
    if (next.done) return next.value;
    sink(next.value);
    if (options.onProgress) {
      lines += countLines(next.value);
      options.onProgress(lines);
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      options.signal?.throwIfAborted();
      sliceStart = performance.now();
    }
  }
}

/**
 * The output rules of spec §7.3 for a file that already exists at `output`: it must not be the
 * input, and must be a regular file. The door and the CLI both check this before planning.
 */
export async function checkOutputTarget(input: string, output: string): Promise<void> {
  const existing = await stat(output).catch(() => undefined);
  if (!existing) return;
  // The same file whatever the names: compared by identity, so nothing can vanish between a check
  // and a second look (the input moving away just means it is not the output).
  const source = await stat(input).catch(() => undefined);
  if (source && source.dev === existing.dev && source.ino === existing.ino) {
    throw new OutputError(`Output path '${output}' would overwrite the input file`);
  }
  if (!existing.isFile()) throw new OutputError(`Could not write G-code to ${output}: not a regular file`);
}

/** Plans into `output` atomically: a failed or interrupted plan leaves any previous file intact. */
export async function planToFile(
  definition: WindDefinition,
  output: string,
  options: PlanRunOptions & { checkLocation?: (realPath: string) => void } = {},
): Promise<PlanSummary> {
  try {
    return await writeFileAtomically(output, (write) => drive(definition, options, write), {
      checkLocation: options.checkLocation,
    });
  } catch (error) {
    // Planning errors and refused locations pass through as they are; anything else is the file's fault.
    if (error instanceof PlanningError || error instanceof LocationRefused) throw error;
    throw new OutputError(`Could not write G-code to ${output}: ${osErrorReason(error)}`);
  }
}

/** Plans into nothing: what validation reports is exactly what planning would, with its metrics. */
export function checkPlanInSlices(
  definition: WindDefinition,
  options: PlanRunOptions = {},
): Promise<PlanSummary> {
  return drive(definition, options, () => {});
}

function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
  return lines;
}

/**
 * The plan response body (spec §7.1), in the spec's field order; the CLI's --json prints the same.
 * A vessel's plan adds `analysis` (docs/winding-vessels.md); every other keeps the spec's body.
 */
export function planResponse(summary: PlanSummary, output: string) {
  return {
    commands: summary.commands,
    output,
    timeSeconds: summary.timeSeconds,
    towMeters: summary.towMeters,
    axisFormat: summary.axisFormat,
    layers: summary.layers,
    ...(summary.analysis === undefined ? {} : { analysis: summary.analysis }),
  };
}
