// `towpath plan | validate | simulate`: the winding engine on files. With --json each prints exactly
// the body the winding door's matching route answers (spec/winding.md §7.1).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { PlanningError, SimulationError, WindFileError } from '../../engine/errors.ts';
import type { AxisFormat, PlanSummary } from '../../engine/plan/types.ts';
import { readWindDefinition } from '../winding/input-file.ts';
import { defaultOutputPath } from '../winding/output-path.ts';
import {
  checkOutputTarget,
  checkPlanInSlices,
  OutputError,
  planResponse,
  planToFile,
} from '../winding/planning.ts';
import { simulateFile } from '../winding/simulation.ts';
import {
  type CliIo,
  type Command,
  FileProblem,
  onePositional,
  parseCommandArgs,
  progressBar,
  UsageError,
  writeJson,
} from './io.ts';
import type { Progress } from './progress.ts';

/**
 * One line for stderr: a schema report's `{loc}` / `  {msg}` pairs become `; {loc}: {msg}`. The
 * exact multi-line text stays in the --json body (and the HTTP detail).
 */
function oneLine(message: string): string {
  const [first = '', ...rest] = message.split('\n');
  let line = first;
  for (const part of rest) line += part.startsWith('  ') ? `: ${part.trimStart()}` : `; ${part}`;
  return line;
}

/**
 * Prints the failure in the route's error shape on stdout when --json asks for it, then rethrows
 * it with a one-line message (the CLI prints errors on stderr as one line).
 */
async function withJsonErrors<T>(
  json: boolean | undefined,
  io: CliIo,
  shape: (detail: string) => unknown,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (json && error instanceof Error && !(error instanceof UsageError)) writeJson(io, shape(error.message));
    if (error instanceof WindFileError && error.message.includes('\n')) {
      throw new WindFileError(oneLine(error.message), { missing: error.missing });
    }
    throw error;
  }
}

export const plan: Command = {
  exitCode: windingExitCode,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      output: { type: 'string', short: 'o' },
      'axis-format': { type: 'string' },
      verbose: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const input = onePositional(positionals, 'the .wind file to plan');
    const axisFormat = values['axis-format'] ?? 'xab';
    if (axisFormat !== 'xab' && axisFormat !== 'xyz') {
      throw new UsageError(`--axis-format must be xab or xyz (got '${axisFormat}')`);
    }
    return withJsonErrors(
      values.json,
      io,
      (detail) => ({ detail }),
      async () => {
        const definition = await readWindDefinition(input);
        const output = resolve(values.output ?? defaultOutputPath(realpathSync(input)));
        let summary: PlanSummary;
        try {
          await checkOutputTarget(input, output);
          summary = await withProgress(io, 'Planning', 'lines', (progress) =>
            planToFile(definition, output, {
              axisFormat: axisFormat as AxisFormat,
              verbose: values.verbose ?? false,
              onProgress: countLines(io, progress),
            }),
          );
        } catch (error) {
          throw error instanceof OutputError ? new FileProblem(error.message) : error;
        }
        const body = planResponse(summary, realpathSync(output));
        if (values.json) writeJson(io, body);
        else {
          io.stdout(
            `Planned ${summary.commands.toLocaleString('en')} lines in ${summary.layers.length} layer(s) → ${body.output}\n` +
              `Tow ${summary.towMeters.toFixed(2)} m, estimated time ${duration(summary.timeSeconds)}\n`,
          );
        }
        return 0;
      },
    );
  },
};

export const validate: Command = {
  exitCode: windingExitCode,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
    const input = onePositional(positionals, 'the .wind file to validate');
    return withJsonErrors(
      values.json,
      io,
      (detail) => ({ status: 'error', detail }),
      async () => {
        const definition = await readWindDefinition(input);
        await withProgress(io, 'Validating', 'lines', (progress) =>
          checkPlanInSlices(definition, { onProgress: countLines(io, progress) }),
        );
        if (values.json) writeJson(io, { status: 'ok', path: input });
        else io.stdout(`${input} is valid\n`);
        return 0;
      },
    );
  },
};

export const simulate: Command = {
  exitCode: windingExitCode,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
    const input = onePositional(positionals, 'the G-code file to simulate');
    return withJsonErrors(
      values.json,
      io,
      (detail) => ({ detail }),
      async () => {
        const summary = await withProgress(io, 'Simulating', 'bytes', (progress) =>
          // No size limit here: the simulator streams, and a program `towpath plan` wrote is taken
          // whatever its size (the winding door keeps the spec's 64 MB for its clients).
          simulateFile(input, {
            maxBytes: Number.POSITIVE_INFINITY,
            onProgress: (done, size) => progress.update(done, size),
          }),
        );
        if (values.json) writeJson(io, summary);
        else {
          io.stdout(
            `${summary.commands.toLocaleString('en')} commands, ${summary.moves.toLocaleString('en')} moves\n` +
              `Distance ${(summary.total_distance_mm / 1000).toFixed(2)} m at ${summary.average_feed_rate_mmpm.toFixed(0)} mm/min on average, estimated time ${duration(summary.estimated_time_s)}\n`,
          );
        }
        return 0;
      },
    );
  },
};

/** Runs `work` with a progress bar (of unknown total) that is cleared however the work ends. */
async function withProgress<T>(
  io: CliIo,
  label: string,
  unit: string,
  work: (progress: Progress) => Promise<T>,
): Promise<T> {
  const progress = progressBar(io, label, unit);
  try {
    return await work(progress);
  } finally {
    progress.finish();
  }
}

/** Lines for the bar; none without one, so the planner does not count the lines it writes. */
function countLines(io: CliIo, progress: Progress): ((lines: number) => void) | undefined {
  return io.progress ? (lines) => progress.update(lines) : undefined;
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h} h ${m} min ${r} s` : m > 0 ? `${m} min ${r} s` : `${r} s`;
}

/** Exit code for an engine error: 2 for file and schema problems, 1 for planning and simulation. */
export function windingExitCode(error: unknown): number | undefined {
  if (error instanceof WindFileError || error instanceof FileProblem) return 2;
  if (error instanceof SimulationError) return error.missing || error.unreadable ? 2 : 1;
  if (error instanceof PlanningError) return 1;
  return undefined;
}
