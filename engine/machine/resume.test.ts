// Resume from a checkpoint, for every checkpoint of the reference cases (and the example cone and
// vessel): the lead-in leaves the machine in the state the full program is in just before the
// checkpoint's line, the tail winds exactly the tow and time that remain, and a forward-only
// lead-in never turns the mandrel backwards.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { SimulationError } from '../errors.ts';
import { GcodeSimulator } from '../gcode/simulator.ts';
import { fmt6, pmod } from '../numeric.ts';
import {
  CHECKPOINT_SLICE_LINES,
  type Checkpoint,
  checkpointSlices,
  definitionCheckpoints,
  type ProgramState,
  readCheckpoints,
} from '../plan/checkpoints.ts';
import type { AxisFormat } from '../plan/types.ts';
import { parseWindDefinition } from '../wind/index.ts';
import { axisLetters } from './manual.ts';
import { prepareProgram } from './program.ts';
import {
  DEFAULT_QUEUE_DEPTH,
  REATTACH_PAUSE,
  type ResumeStart,
  resumedProgram,
  resumeLeadIn,
  suggestCheckpoint,
} from './resume.ts';

/** Every valid reference case (the invalid ones have no program). */
const CASES = readdirSync(REFERENCE_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('conf_invalid'))
  .map((entry) => entry.name);

const EXAMPLES = join(import.meta.dirname, '..', '..', 'resources', 'examples');

function golden(name: string, format: AxisFormat): string | undefined {
  try {
    return readFileSync(join(REFERENCE_ROOT, name, `expected-${format}.gcode`), 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs `lines` through the simulator one by one; the machine after each. */
function run(lines: readonly string[]): { x: number; a: number; b: number; time: number; tow: number }[] {
  const simulator = new GcodeSimulator();
  const encoder = new TextEncoder();
  const states = [];
  for (const line of lines) {
    simulator.push(encoder.encode(`${line}\n`));
    const m = simulator.machine;
    states.push({ x: m.x, a: m.a, b: m.b, time: simulator.elapsedSeconds, tow: m.distanceMm });
  }
  return states;
}

function place(format: AxisFormat, s: { x: number; a: number; b: number }): string {
  const { A, B } = axisLetters(format);
  return `G92 X${fmt6(s.x)} ${A}${fmt6(s.a)} ${B}${fmt6(s.b)}`;
}

const close = (actual: number, expected: number, tolerance = 1e-6) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance);

/** The controller stands where the program had it at `state` (its frame is that state's). */
const startAt = (state: ProgramState): ResumeStart => ({
  x: state.x,
  a: state.a,
  b: state.b,
  rezero: state.rezero,
});

function checkLeadIn(
  format: AxisFormat,
  checkpoint: Checkpoint,
  from: ProgramState,
  header: string,
  towAttached: boolean,
): void {
  const leadIn = resumeLeadIn(checkpoint, {
    from: startAt(from),
    towAttached,
    pause: !towAttached,
    axisFormat: format,
  });
  const states = run([header, 'G0 F1000', place(format, from), ...leadIn]);
  const during = states.slice(3);
  const last = during[during.length - 1] as { x: number; a: number; b: number };
  // The state the full program is in just before the checkpoint's line.
  close(last.x, checkpoint.x);
  close(last.a, checkpoint.a);
  close(last.b, checkpoint.b);
  // Before the re-zero, the mandrel stands at the checkpoint's angle modulo a turn, in the
  // controller's frame: the same physical angle (a + the re-zeros so far).
  const g92 = leadIn.findIndex((line) => line.startsWith('G92 '));
  const turned = during[g92 - 1] as { a: number };
  const off = pmod(turned.a + from.rezero - (checkpoint.a + checkpoint.rezero), 360);
  expect(Math.min(off, 360 - off)).toBeLessThan(1e-5);
  const angles = [from.a, ...during.slice(0, g92).map((s) => s.a)];
  for (let i = 1; i < angles.length; i++) {
    const step = (angles[i] as number) - (angles[i - 1] as number);
    if (towAttached) expect(step).toBeGreaterThanOrEqual(0);
    else expect(Math.abs(step)).toBeLessThanOrEqual(180 + 1e-6);
  }
  expect(leadIn.includes(REATTACH_PAUSE)).toBe(!towAttached);
}

function checkProgram(text: string, format: AxisFormat): void {
  const read = readCheckpoints(text);
  expect(read.axisFormat).toBe(format);
  const header = read.header as string;
  expect(header).toMatch(/^; Parameters /);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const { checkpoints, end } = read;
  // One checkpoint per layer comment and per circuit comment, in program order.
  const markers = lines.filter((line) =>
    /^; Layer \d+ of|^;\s*(Pattern: \d+\/\d+ )?Circuit: \d+\/\d+$/.test(line),
  );
  expect(checkpoints.length).toBe(markers.length);
  for (const checkpoint of checkpoints) {
    expect(lines[checkpoint.line - 1]).toBe(markers[checkpoint.index - 1]);
  }
  // Each checkpoint's command count is the commands before its line: the tail a resume streams
  // from it (commands.slice(command)) starts at that line, none skipped and none twice.
  const commands = prepareProgram(text).commands;
  for (const checkpoint of checkpoints) {
    const first = commands.findIndex((command) => command.sourceLine >= checkpoint.line);
    expect(first === -1 ? commands.length : first, `checkpoint ${checkpoint.index}`).toBe(checkpoint.command);
  }
  // The state just before each checkpoint's line, from an independent run of the prefix.
  const prefixStates = run(lines);
  for (const checkpoint of checkpoints) {
    const before = prefixStates[checkpoint.line - 2] as {
      x: number;
      a: number;
      b: number;
      time: number;
      tow: number;
    };
    expect([checkpoint.x, checkpoint.a, checkpoint.b]).toEqual([before.x, before.a, before.b]);
    expect(checkpoint.time_s).toBe(before.time);
    expect(checkpoint.tow_m).toBe(before.tow / 1000);
  }
  for (const [i, checkpoint] of checkpoints.entries()) {
    // From the next checkpoint, and from the very end: a later point where the machine stopped.
    const later = checkpoints[i + 1] ?? end;
    checkLeadIn(format, checkpoint, later, header, true);
    checkLeadIn(format, checkpoint, end, header, false);
    // The tail from the checkpoint, started in the checkpoint's state, winds what remains.
    const tail = run([
      header,
      `G0 F${fmt6(checkpoint.feed)}`,
      place(format, checkpoint),
      ...lines.slice(checkpoint.line - 1),
    ]);
    const final = tail[tail.length - 1] as { time: number; tow: number; x: number; a: number; b: number };
    close(final.time, end.time_s - checkpoint.time_s, 1e-9 * end.time_s + 1e-9);
    close(final.tow / 1000, end.tow_m - checkpoint.tow_m, 1e-9 * end.tow_m + 1e-9);
    // The whole resumed program ends where the full program ends (the first and last checkpoint:
    // each run is a whole program).
    if (i !== 0 && i !== checkpoints.length - 1) continue;
    const resumed = resumedProgram(
      text,
      header,
      checkpoint,
      resumeLeadIn(checkpoint, { from: startAt(later), towAttached: true, pause: false, axisFormat: format }),
    ).split('\n');
    const states = run([resumed[0] as string, place(format, later), ...resumed.slice(1)]);
    const done = states[states.length - 1] as { x: number; a: number; b: number };
    expect([done.x, done.a, done.b]).toEqual([end.x, end.a, end.b]);
  }
}

describe('resume from every checkpoint of the reference programs', () => {
  for (const name of CASES) {
    for (const format of ['xab', 'xyz'] as const) {
      const text = golden(name, format);
      if (text === undefined) continue;
      it(`${name} (${format})`, () => checkProgram(text, format));
    }
  }
  for (const file of ['reducing-cone.wind', 'vessel.wind']) {
    it(`${file} (planned, xab)`, () => {
      const path = join(EXAMPLES, file);
      const { gcode, checkpoints } = definitionCheckpoints(parseWindDefinition(readFileSync(path), path));
      expect(checkpoints.some((c) => c.kind === 'circuit')).toBe(true);
      checkProgram(gcode, 'xab');
    }, 60_000);
  }
});

describe('checkpoints', () => {
  it('are the same from the saved G-code as from planning its .wind', () => {
    for (const name of ['multi_layer', 'conf_valid_multilayer', 'simple_cylinder']) {
      const path = join(REFERENCE_ROOT, name, 'input.wind');
      const planned = definitionCheckpoints(parseWindDefinition(readFileSync(path), path));
      expect(readCheckpoints(golden(name, 'xab') as string).checkpoints).toEqual(planned.checkpoints);
    }
  });

  it('name the layer, pattern and circuit, and track the re-zeros', () => {
    const { checkpoints } = readCheckpoints(golden('multi_layer', 'xab') as string);
    const layers = checkpoints.filter((c) => c.kind === 'layer');
    expect(layers.map((c) => c.layer)).toEqual(layers.map((_, i) => i + 1));
    const circuit = checkpoints.find((c) => c.kind === 'circuit') as Checkpoint;
    expect(circuit).toMatchObject({ pattern: 1, circuit: 1, layer: circuit.layer, windType: 'helical' });
    // Every layer after the first starts in a frame moved back by the layers before it.
    expect(layers[layers.length - 1]?.rezero).toBeGreaterThan(0);
    expect(layers[0]?.rezero).toBe(0);
  });

  it('read in slices give the same result, yielding every CHECKPOINT_SLICE_LINES lines', () => {
    const text = golden('multi_layer', 'xab') as string;
    const steps = checkpointSlices(text, { stateAfterCommand: 1234 });
    let yields = 0;
    let step = steps.next();
    while (!step.done) {
      yields++;
      step = steps.next();
    }
    const lines = text.split('\n').length - 1;
    expect(yields).toBe(Math.floor((lines - 1) / CHECKPOINT_SLICE_LINES));
    expect(step.value).toEqual(readCheckpoints(text, { stateAfterCommand: 1234 }));
    expect(step.value.at?.command).toBe(1234);
  });

  it('refuse a program without the planner comments, and one that does not simulate', () => {
    expect(() => readCheckpoints('; Parameters {"mandrel":{"diameter":70}}\nG0 F100\nG0 X1 A2 B0\n')).toThrow(
      /no checkpoints/,
    );
    expect(() => readCheckpoints('G0 X1 A2 B0\n; Layer 1 of 1: hoop\n')).toThrow(SimulationError);
    expect(() =>
      readCheckpoints('; Parameters {"mandrel":{"diameter":70}}\n; Layer 1 of 1: hoop\nG7 X1\n'),
    ).toThrow("Line 3: unsupported command 'G7'");
  });
});

describe('suggestCheckpoint', () => {
  const { checkpoints } = readCheckpoints(golden('conf_valid_helical', 'xab') as string);
  it('is the latest checkpoint at or before the last acknowledged command minus the queue depth', () => {
    const third = checkpoints[2] as Checkpoint;
    expect(suggestCheckpoint(checkpoints, third.command + DEFAULT_QUEUE_DEPTH)).toBe(third);
    expect(suggestCheckpoint(checkpoints, third.command + DEFAULT_QUEUE_DEPTH - 1)).toBe(checkpoints[1]);
    expect(suggestCheckpoint(checkpoints, third.command + 5, 5)).toBe(third);
  });
  it('is none when not even the first checkpoint is certainly behind the machine', () => {
    expect(
      suggestCheckpoint(checkpoints, (checkpoints[0]?.command ?? 0) + DEFAULT_QUEUE_DEPTH - 1),
    ).toBeUndefined();
  });
});

describe('resumeLeadIn', () => {
  const checkpoint = {
    line: 9,
    command: 5,
    x: 12.5,
    a: 30,
    b: 10,
    rezero: 720,
    feed: 6000,
    tow_m: 0,
    time_s: 0,
  };
  it('turns forward only, through more than half a turn if need be, when the tow is attached', () => {
    const from = { x: 100, a: 200, b: -20, rezero: 720 };
    expect(resumeLeadIn(checkpoint, { from, towAttached: true, pause: false, axisFormat: 'xab' })).toEqual([
      'G0 F6000',
      'G0 B0',
      'G0 X12.5',
      'G0 A390',
      'G92 A30',
      'G0 B10',
    ]);
  });
  it('takes the shorter way and pauses for the tow when it is not attached; Y and Z on an xyz machine', () => {
    const from = { x: 100, a: 200, b: -20, rezero: 720 };
    expect(resumeLeadIn(checkpoint, { from, towAttached: false, pause: true, axisFormat: 'xyz' })).toEqual([
      'G0 F6000',
      'G0 Z0',
      'G0 X12.5',
      'G0 Y30',
      REATTACH_PAUSE,
      'G92 Y30',
      'G0 Z10',
    ]);
  });
  it("accounts for the controller's frame being another layer's", () => {
    // The controller's coordinate is in a frame re-zeroed 90° less than the checkpoint's.
    const from = { x: 0, a: 10, b: 0, rezero: 630 };
    const lines = resumeLeadIn(checkpoint, { from, towAttached: true, pause: false, axisFormat: 'xab' });
    expect(lines[3]).toBe('G0 A120');
  });
});
