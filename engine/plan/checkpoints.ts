// Checkpoints: the points of a planned program where a stopped winding can be taken up again —
// each layer start and each circuit start — with the machine's state there. The planner already
// marks both in its output (`; Layer i of n: type`, `; \tPattern: p/q Circuit: c/P`, and
// `; \tCircuit: c/n` on a vessel), so checkpoints are read from those comments and the state
// comes from re-simulating the program up to them. A `.wind` is planned and read the same way,
// so a program saved earlier and one planned now give the same checkpoints, and the G-code stays
// byte for byte what it always was (docs/operating.md, "Resume, step by step").
import { SimulationError } from '../errors.ts';
import { GcodeSimulator } from '../gcode/simulator.ts';
import type { WindDefinition } from '../wind/types.ts';
import { planToString } from './index.ts';
import type { AxisFormat } from './types.ts';

/** Where a program has left the machine at a point of it. */
export interface ProgramState {
  /** 1-based line of the program text this state is just before. */
  line: number;
  /** Commands (lines sent to the controller) before that line. */
  command: number;
  /** Carriage, mm. */
  x: number;
  /** Mandrel, degrees, in the program's frame at that point (after its `G92` re-zeros). */
  a: number;
  /** Delivery head, degrees. */
  b: number;
  /**
   * The sum of the mandrel re-zeros (`G92`) so far: how far the program's frame has been moved
   * back. The mandrel's unwrapped angle since the start is `a + rezero`.
   */
  rezero: number;
  /** The modal feed rate in force (mm/min), 0 before the first F. */
  feed: number;
  /** Tow and time so far, in the simulator's model (spec §5). */
  tow_m: number;
  time_s: number;
}

export type CheckpointKind = 'layer' | 'circuit';

/** Which layer, pattern and circuit a checkpoint starts. */
export interface CheckpointPlace {
  kind: CheckpointKind;
  layer: number;
  layers: number;
  windType: string;
  /** Pattern k of n on a helical layer; null on a layer start or a vessel circuit. */
  pattern: number | null;
  patterns: number | null;
  /** Circuit j of m (within its pattern on a helical layer); null on a layer start. */
  circuit: number | null;
  circuits: number | null;
}

export interface Checkpoint extends ProgramState, CheckpointPlace {
  /** 1-based position in the program's list of checkpoints. */
  index: number;
}

export interface ProgramCheckpoints {
  axisFormat: AxisFormat;
  checkpoints: Checkpoint[];
  /** The state at the end of the program (its totals). */
  end: ProgramState;
  /** The `; Parameters` header line, which a resumed program carries again. */
  header: string | null;
  /** The state after the command asked for with `stateAfterCommand`, when the program has it. */
  at?: ProgramState;
}

const LAYER = /^;\s*Layer (\d+) of (\d+): (\w+)\s*$/;
const PATTERN_CIRCUIT = /^;\s*Pattern: (\d+)\/(\d+) Circuit: (\d+)\/(\d+)\s*$/;
const VESSEL_CIRCUIT = /^;\s*Circuit: (\d+)\/(\d+)\s*$/;
const SET_POSITION = /^\s*G92(\s|$)/i;
const FORMAT_WORDS = /^\s*G(0|1|00|01|92)\s.*\b([ABYZ])-?[\d.]/i;

/** The lines of a program text, without their line ends (CRLF, LF or CR). */
export function programLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/);
}

/** A layer or circuit start of a program and the text line (1-based) it is on, from its comments only. */
export interface PlaceMark {
  line: number;
  place: Omit<CheckpointPlace, 'kind'>;
}

/**
 * The layer and circuit starts of a program, read from its comments alone (nothing is simulated,
 * so any G-code is read; one without the planner's comments has none), yielding after every
 * CHECKPOINT_SLICE_LINES lines so the machine process can read a running job's program between
 * other work.
 */
export function* placeSlices(text: string): Generator<void, PlaceMark[], undefined> {
  const lines = programLines(text);
  const marks: PlaceMark[] = [];
  let layer = { layer: 0, layers: 0, windType: '' };
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && i % CHECKPOINT_SLICE_LINES === 0) yield;
    const trimmed = (lines[i] as string).trim();
    if (!trimmed.startsWith(';')) continue;
    const marker = markerOf(trimmed);
    if (marker === null) continue;
    const { kind: _kind, ...place } = marker;
    if (marker.kind === 'layer')
      layer = { layer: place.layer, layers: place.layers, windType: place.windType };
    marks.push({ line: i + 1, place: { ...place, ...layer } });
  }
  return marks;
}

/**
 * The checkpoints of a G-code program planned by Towpath. Throws SimulationError when the
 * program cannot be simulated, or when it has no checkpoint comments (not planned by Towpath, or
 * its comments were stripped).
 */
export function readCheckpoints(
  text: string,
  options: { stateAfterCommand?: number } = {},
): ProgramCheckpoints {
  const steps = checkpointSlices(text, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Lines read between two yields of `checkpointSlices`. */
export const CHECKPOINT_SLICE_LINES = 2048;

/**
 * readCheckpoints in slices: yields after every CHECKPOINT_SLICE_LINES lines and returns the
 * result, so a process whose event loop must stay free (the machine process) can read a long
 * program between other work.
 */
export function* checkpointSlices(
  text: string,
  options: { stateAfterCommand?: number } = {},
): Generator<void, ProgramCheckpoints, undefined> {
  const simulator = new GcodeSimulator();
  const encoder = new TextEncoder();
  const lines = programLines(text);
  // A final line end does not start another line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const checkpoints: Checkpoint[] = [];
  let layer = { index: 0, count: 0, type: '' };
  let rezero = 0;
  let header: string | null = null;
  let axisFormat: AxisFormat | null = null;
  let at: ProgramState | undefined;
  const want = options.stateAfterCommand;
  const stateBefore = (lineNo: number): ProgramState => {
    const m = simulator.machine;
    return {
      line: lineNo,
      command: simulator.commandLineCount,
      x: m.x,
      a: m.a,
      b: m.b,
      rezero,
      feed: m.feed,
      tow_m: m.distanceMm / 1000,
      time_s: simulator.elapsedSeconds,
    };
  };
  if (want === 0) at = stateBefore(1);
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && i % CHECKPOINT_SLICE_LINES === 0) yield;
    const line = lines[i] as string;
    const trimmed = line.trim();
    if (trimmed.startsWith(';')) {
      if (header === null && trimmed.startsWith('; Parameters ')) header = trimmed;
      const marker = markerOf(trimmed);
      if (marker !== null) {
        if (marker.kind === 'layer')
          layer = { index: marker.layer, count: marker.layers, type: marker.windType };
        checkpoints.push({
          ...stateBefore(i + 1),
          index: checkpoints.length + 1,
          kind: marker.kind,
          layer: layer.index,
          layers: layer.count,
          windType: layer.type,
          pattern: marker.pattern,
          patterns: marker.patterns,
          circuit: marker.circuit,
          circuits: marker.circuits,
        });
      }
    }
    if (axisFormat === null) {
      const letter = FORMAT_WORDS.exec(line)?.[2]?.toUpperCase();
      if (letter !== undefined) axisFormat = letter === 'A' || letter === 'B' ? 'xab' : 'xyz';
    }
    const before = simulator.machine.a;
    simulator.push(encoder.encode(`${line}\n`));
    if (SET_POSITION.test(line)) rezero += before - simulator.machine.a;
    if (want !== undefined && at === undefined && simulator.commandLineCount === want)
      at = stateBefore(i + 2);
  }
  const summary = simulator.finish();
  if (checkpoints.length === 0) {
    throw new SimulationError(
      'The program has no checkpoints: it carries no layer or circuit comments of a program planned by Towpath',
    );
  }
  const end = stateBefore(lines.length + 1);
  end.tow_m = summary.tow_length_mm / 1000;
  end.time_s = summary.estimated_time_s;
  return { axisFormat: axisFormat ?? 'xab', checkpoints, end, header, ...(at ? { at } : {}) };
}

/** Plans `definition` and reads the checkpoints of the program it gives. */
export function definitionCheckpoints(
  definition: WindDefinition,
  axisFormat: AxisFormat = 'xab',
  options: { stateAfterCommand?: number } = {},
): ProgramCheckpoints & { gcode: string } {
  const { gcode } = planToString(definition, { axisFormat });
  return { ...readCheckpoints(gcode, options), gcode };
}

function markerOf(comment: string): CheckpointPlace | null {
  const none = { layer: 0, layers: 0, windType: '', pattern: null, patterns: null };
  const layer = LAYER.exec(comment);
  if (layer) {
    return {
      kind: 'layer',
      layer: Number(layer[1]),
      layers: Number(layer[2]),
      windType: layer[3] as string,
      pattern: null,
      patterns: null,
      circuit: null,
      circuits: null,
    };
  }
  const helical = PATTERN_CIRCUIT.exec(comment);
  if (helical) {
    return {
      ...none,
      kind: 'circuit',
      pattern: Number(helical[1]),
      patterns: Number(helical[2]),
      circuit: Number(helical[3]),
      circuits: Number(helical[4]),
    };
  }
  const vessel = VESSEL_CIRCUIT.exec(comment);
  if (vessel) return { ...none, kind: 'circuit', circuit: Number(vessel[1]), circuits: Number(vessel[2]) };
  return null;
}

/** How a checkpoint reads to an operator: `Layer 2 of 3 (helical), pattern 1/4, circuit 2/3`. */
export function describeCheckpoint(checkpoint: CheckpointPlace): string {
  const where = `Layer ${checkpoint.layer} of ${checkpoint.layers} (${checkpoint.windType})`;
  if (checkpoint.kind === 'layer') return `${where}, start`;
  const pattern = checkpoint.pattern === null ? '' : `, pattern ${checkpoint.pattern}/${checkpoint.patterns}`;
  return `${where}${pattern}, circuit ${checkpoint.circuit}/${checkpoint.circuits}`;
}
