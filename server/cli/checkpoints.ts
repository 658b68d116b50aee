// `towpath checkpoints <file.wind|file.gcode>`: where a stopped winding can be taken up again —
// each layer and circuit start with the machine's state there. A `.wind` is planned first; a
// G-code file planned by Towpath carries its checkpoints in its comments. `loadCheckpoints` is
// also what `towpath stream --resume-from` reads.
import {
  type Checkpoint,
  definitionCheckpoints,
  describeCheckpoint,
  type ProgramCheckpoints,
  readCheckpoints,
} from '../../engine/plan/checkpoints.ts';
import type { AxisFormat } from '../../engine/plan/types.ts';
import { readInputFile, readWindDefinition } from '../winding/input-file.ts';
import { type Command, onePositional, parseCommandArgs, UsageError, writeJson } from './io.ts';
import { windingExitCode } from './winding.ts';

/** A program with its checkpoints: planned from a `.wind`, or read from a G-code file. */
export async function loadCheckpoints(
  file: string,
  axisFormat: AxisFormat = 'xab',
  stateAfterCommand?: number,
): Promise<ProgramCheckpoints & { gcode: string }> {
  const options = stateAfterCommand === undefined ? {} : { stateAfterCommand };
  if (/\.wind$/i.test(file)) {
    const definition = await readWindDefinition(file);
    return definitionCheckpoints(definition, axisFormat, options);
  }
  // Latin-1, as a job reads it: one character per byte.
  const gcode = Buffer.from(await readInputFile(file, 'gcode', file, { maxBytes: Infinity })).toString(
    'latin1',
  );
  return { ...readCheckpoints(gcode, options), gcode };
}

/** A checkpoint as `--json` prints it: the engine's fields plus its description. */
function checkpointJson(checkpoint: Checkpoint) {
  return { ...checkpoint, description: describeCheckpoint(checkpoint) };
}

export const checkpoints: Command = {
  exitCode: windingExitCode,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      'axis-format': { type: 'string' },
      json: { type: 'boolean' },
    });
    const file = onePositional(positionals, 'the .wind or G-code file');
    const axisFormat = values['axis-format'] ?? 'xab';
    if (axisFormat !== 'xab' && axisFormat !== 'xyz') {
      throw new UsageError(`--axis-format must be xab or xyz (got '${axisFormat}')`);
    }
    let read: Awaited<ReturnType<typeof loadCheckpoints>>;
    try {
      read = await loadCheckpoints(file, axisFormat);
    } catch (error) {
      if (values.json && error instanceof Error) writeJson(io, { detail: error.message });
      throw error;
    }
    if (values.json) {
      writeJson(io, {
        axisFormat: read.axisFormat,
        checkpoints: read.checkpoints.map(checkpointJson),
        end: read.end,
      });
      return 0;
    }
    io.stdout(table(read.checkpoints));
    io.stdout(
      `${read.checkpoints.length} checkpoints; the program ends at line ${read.end.line - 1} after ${read.end.command} commands, ${read.end.tow_m.toFixed(2)} m of tow\n`,
    );
    return 0;
  },
};

const COLUMNS = ['#', 'line', 'command', 'where', 'X', 'A', 'B', 're-zero', 'tow m', 'time s'] as const;

function table(list: readonly Checkpoint[]): string {
  const rows = list.map((c) => [
    String(c.index),
    String(c.line),
    String(c.command),
    describeCheckpoint(c),
    c.x.toFixed(3),
    c.a.toFixed(3),
    c.b.toFixed(3),
    c.rezero.toFixed(3),
    c.tow_m.toFixed(3),
    c.time_s.toFixed(1),
  ]);
  const widths = COLUMNS.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  // Text left, numbers right, as a reader scans them.
  const cell = (text: string, i: number) =>
    i === 3 ? text.padEnd(widths[i] ?? 0) : text.padStart(widths[i] ?? 0);
  return [COLUMNS as readonly string[], ...rows]
    .map((row) => `${row.map(cell).join('  ').trimEnd()}\n`)
    .join('');
}

/** A checkpoint named on the command line: its number in the list (1-based). */
export function checkpointByNumber(list: readonly Checkpoint[], text: string): Checkpoint {
  const number = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const found = list[number - 1];
  if (found === undefined) {
    throw new UsageError(
      `--resume-from must be auto or a checkpoint number from 1 to ${list.length} (see towpath checkpoints; got '${text}')`,
    );
  }
  return found;
}
