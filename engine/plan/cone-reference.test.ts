// Reducing cones against the reference planner 0.10's own outputs (reference/winding-cones/, whose
// README states the acceptance rule). JavaScript's acos/asin and the reference's C library differ
// in the last bit for a few arguments, so bodies are compared word for word with exactly two
// allowances: an A or B word one unit off in the sixth decimal, and a layer's re-zero printing A0
// where the other prints A360.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONE_REFERENCE_ROOT as CONE_ROOT } from '../../reference/paths.ts';
import { PlanningError } from '../errors.ts';
import { simulateGcode } from '../gcode/index.ts';
import { DEG } from '../numeric.ts';
import { parseWindDefinition } from '../wind/index.ts';
import { type ConeKinematics, coneKinematics } from './cone.ts';
import { checkPlan, planToString } from './index.ts';
import type { LayerMetrics } from './types.ts';

interface ConeExpected {
  plan?: { towMeters: number; timeSeconds: number; layers: LayerMetrics[] };
  output?: { file: string; lines: number; header_lines: number; body_lines: number; sha256: string };
  mandrel?: { diameter: number; windLength: number; endDiameter: number };
  error?: { level: string; cli_exit: number; detail: string; contains: string[] };
}

const cases = readdirSync(CONE_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const expectedOf = (name: string): ConeExpected =>
  JSON.parse(readFileSync(join(CONE_ROOT, name, 'expected.json'), 'utf8'));
const valid = cases.filter((name) => expectedOf(name).plan !== undefined);
const invalid = cases.filter((name) => expectedOf(name).error !== undefined);

function definitionOf(name: string) {
  const path = join(CONE_ROOT, name, 'input.wind');
  return parseWindDefinition(readFileSync(path), path);
}

/** The reference G-code; the large ones are stored xz-compressed. */
function referenceGcode(name: string, file: string): Buffer {
  const path = join(CONE_ROOT, name, file);
  if (!file.endsWith('.xz')) return readFileSync(path);
  return execFileSync('xz', ['--decompress', '--stdout', path], { maxBuffer: 256 * 1024 * 1024 });
}

/**
 * The program from its first motion line (`G0 X0 A0 B0`) on: the reference writes a 0.10 header
 * and `G21`/`G90`/`G94` before it, this planner its one 0.6 header line.
 */
function bodyOf(gcode: string): string[] {
  const lines = gcode.slice(0, -1).split('\n');
  return lines.slice(lines.findIndex((line) => line.startsWith('G0 ')));
}

const ZERO_AXES = /^G92 X0 A(0|360) B0$/;

interface Difference {
  line: number;
  kind: 'last-digit' | 'flip' | 'other';
  ours: string;
  theirs: string;
}

/** A coordinate written with at most six decimals, in exact millionths. */
function micros(word: string): bigint | null {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(word);
  if (!match) return null;
  const value = BigInt(match[2] ?? '0') * 1_000_000n + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] === '-' ? -value : value;
}

/** Classifies every line where the two bodies differ. */
function differences(ours: string[], theirs: string[]): Difference[] {
  const found: Difference[] = [];
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    const a = ours[i] ?? '';
    const b = theirs[i] ?? '';
    if (a === b) continue;
    const flip = ZERO_AXES.exec(a);
    const flipped = ZERO_AXES.exec(b);
    if (flip && flipped && flip[1] !== flipped[1]) {
      found.push({ line: i, kind: 'flip', ours: a, theirs: b });
      continue;
    }
    const wa = a.split(' ');
    const wb = b.split(' ');
    const lastDigitOnly =
      wa.length === wb.length &&
      wa.every((word, k) => {
        const other = wb[k] ?? '';
        if (word === other) return true;
        if (!/^[AB]/.test(word) || word[0] !== other[0]) return false;
        const a = micros(word.slice(1));
        const b = micros(other.slice(1));
        return a !== null && b !== null && (a - b === 1n || b - a === 1n);
      });
    found.push({ line: i, kind: lastDigitOnly ? 'last-digit' : 'other', ours: a, theirs: b });
  }
  return found;
}

/** The 1-based layer of each body line, from the `; Layer i of n` comments. */
function layerOfLines(body: string[]): number[] {
  let layer = 0;
  return body.map((line) => {
    const match = /^; Layer (\d+) of /.exec(line);
    if (match) layer = Number(match[1]);
    return layer;
  });
}

const within = (actual: number, expected: number, relative: number): boolean =>
  Math.abs(actual - expected) <= relative * Math.abs(expected);

describe('cone reference cases (reference/winding-cones)', () => {
  it('holds the reference cone cases, 20 generated ones and the flip case among them', () => {
    expect(valid).toEqual(expect.arrayContaining(['conf_valid_cone', 'cone_reducer', 'sweep_flip_1']));
    expect(valid.filter((name) => /^sweep_\d+$/.test(name))).toHaveLength(20);
    expect(invalid).toEqual(
      expect.arrayContaining([
        'conf_invalid_expanding_cone',
        'conf_invalid_hoop_on_cone',
        'conf_invalid_unreachable_cone_angle',
      ]),
    );
  });

  it('conf_valid_cone: the body is byte-identical to the reference', () => {
    const expected = expectedOf('conf_valid_cone');
    const reference = referenceGcode('conf_valid_cone', expected.output?.file ?? '').toString('latin1');
    const ours = planToString(definitionOf('conf_valid_cone')).gcode;
    expect(bodyOf(ours).join('\n') === bodyOf(reference).join('\n')).toBe(true);
  });

  for (const name of valid) {
    it(`${name}: same lines but for last-digit A/B words and re-zero flips; commands and tow`, () => {
      const expected = expectedOf(name);
      const output = expected.output;
      const plan = expected.plan;
      if (!output || !plan) throw new Error(`${name}: expected.json has no plan or output`);
      const raw = referenceGcode(name, output.file);
      expect(createHash('sha256').update(raw).digest('hex')).toBe(output.sha256);
      const theirs = bodyOf(raw.toString('latin1'));
      expect(theirs).toHaveLength(output.body_lines);

      const { gcode, summary } = planToString(definitionOf(name));
      const ours = bodyOf(gcode);
      expect(ours).toHaveLength(theirs.length);
      const found = differences(ours, theirs);
      expect(found.filter((d) => d.kind === 'other')).toEqual([]);

      expect(summary.layers.map((layer) => layer.commands)).toEqual(
        plan.layers.map((layer) => layer.commands),
      );
      expect(summary.layers.map((layer) => layer.wind_type)).toEqual(
        plan.layers.map((layer) => layer.wind_type),
      );

      // A flip makes one planner turn the mandrel a full extra 360° in the next line: tow π·D.
      const layerOf = layerOfLines(ours);
      const turn = (Math.PI * definitionOf(name).mandrelParameters.diameter) / 1000;
      const extra = plan.layers.map(() => 0);
      for (const flip of found.filter((d) => d.kind === 'flip')) {
        const index = (layerOf[flip.line] ?? 0) - 1;
        extra[index] = (extra[index] ?? 0) + (flip.ours.includes('A0 ') ? turn : -turn);
      }
      summary.layers.forEach((layer, i) => {
        const reference = plan.layers[i]?.tow_m ?? Number.NaN;
        expect(within(layer.tow_m, reference + (extra[i] ?? 0), 1e-9), `layer ${i + 1} tow`).toBe(true);
      });
      const totalExtra = extra.reduce((sum, value) => sum + value, 0);
      expect(within(summary.towMeters, plan.towMeters + totalExtra, 1e-9)).toBe(true);
      // The time model is 0.10's too; a flip's extra turn would add its time, so only without one.
      if (totalExtra === 0) expect(within(summary.timeSeconds, plan.timeSeconds, 1e-9)).toBe(true);
    });
  }

  for (const name of valid.filter((name) => existsSync(join(CONE_ROOT, name, 'simulate.json')))) {
    it(`${name}: simulating the planned program gives the reference simulator's figures`, () => {
      const reference = JSON.parse(readFileSync(join(CONE_ROOT, name, 'simulate.json'), 'utf8'));
      const simulated = simulateGcode(planToString(definitionOf(name)).gcode);
      // 0.10 does not count its three modal lines, so its count is its header and body: ours.
      expect(simulated.commands).toBe(reference.commands_executed);
      expect(simulated.moves).toBe(reference.moves);
      for (const key of [
        'estimated_time_s',
        'total_distance_mm',
        'tow_length_mm',
        'average_feed_rate_mmpm',
      ] as const) {
        expect(within(simulated[key], reference[key], 1e-9), key).toBe(true);
      }
    });
  }

  it('every helical layer of every case lays the geodesic: Clairaut from the written X and A words within 5e-3 mm', () => {
    // With X = z and A = φ, a station's chord has tan α = r·Δφ·cos φh / |Δz| on the unrolled cone
    // (the reference planner's own tolerance for its output).
    for (const name of valid) {
      const definition = definitionOf(name);
      let cone: ConeKinematics | null = null;
      let previous: [number, number] | null = null;
      let worst = 0;
      for (const line of planToString(definition).gcode.split('\n')) {
        const layer = /^; Layer (\d+) of /.exec(line);
        if (layer) {
          const current = definition.layers[Number(layer[1]) - 1];
          cone =
            current?.windType === 'helical' ? coneKinematics(current, definition.mandrelParameters) : null;
        }
        if (cone === null || !line.startsWith('G0 X')) {
          previous = null;
          continue;
        }
        const words = line.split(' ');
        const x = Number(words[1]?.slice(1));
        const a = Number(words[2]?.slice(1));
        if (previous !== null && Math.abs(x - previous[0]) > 0.5) {
          const r = cone.r0 + (cone.r1 - cone.r0) * ((x + previous[0]) / 2 / cone.L);
          const cosHalfAngle = Math.sqrt(1 - cone.sinHalfAngle * cone.sinHalfAngle);
          const alpha = Math.atan((r * (a - previous[1]) * DEG * cosHalfAngle) / Math.abs(x - previous[0]));
          worst = Math.max(worst, Math.abs(r * Math.sin(alpha) - cone.c));
        }
        previous = [x, a];
      }
      expect(worst, name).toBeLessThanOrEqual(5e-3);
    }
  });

  it('sweep_flip_1: the one allowed semantic difference shows up as a flip', () => {
    const expected = expectedOf('sweep_flip_1');
    const theirs = bodyOf(referenceGcode('sweep_flip_1', expected.output?.file ?? '').toString('latin1'));
    const found = differences(bodyOf(planToString(definitionOf('sweep_flip_1')).gcode), theirs);
    expect(found.filter((d) => d.kind === 'flip')).toHaveLength(1);
  });

  for (const name of invalid) {
    it(`${name}: plan and validate refuse it with the reference's message`, () => {
      const error = expectedOf(name).error;
      if (!error) throw new Error(`${name}: expected.json has no error`);
      expect(error.level).toBe('planning');
      const definition = definitionOf(name);
      let message = '';
      try {
        checkPlan(definition);
      } catch (thrown) {
        expect(thrown).toBeInstanceOf(PlanningError);
        message = (thrown as Error).message;
      }
      expect(message).toBe(error.detail);
      for (const part of error.contains) expect(message).toContain(part);
      expect(() => planToString(definition)).toThrow(new PlanningError(error.detail));
    });
  }
});

describe('the comparison itself', () => {
  it('tells last-digit words and flips from real differences', () => {
    const kinds = (a: string, b: string) => differences([a], [b]).map((d) => d.kind);
    expect(kinds('G0 X7 A9057.963772 B59.106264', 'G0 X7 A9057.963771 B59.106264')).toEqual(['last-digit']);
    expect(kinds('G0 X7 A1 B-0.000001', 'G0 X7 A1 B0')).toEqual(['last-digit']);
    expect(kinds('G0 X7 A9057.963773 B59.106264', 'G0 X7 A9057.963771 B59.106264')).toEqual(['other']);
    expect(kinds('G0 X7.000001 A1 B1', 'G0 X7 A1 B1')).toEqual(['other']);
    expect(kinds('G92 X0 A0 B0', 'G92 X0 A360 B0')).toEqual(['flip']);
    expect(kinds('G0 X0 A0 B0', 'G0 X0 A360 B0')).toEqual(['other']);
    expect(kinds('; Pattern: 1/2', '; Pattern: 1/3')).toEqual(['other']);
    expect(kinds('; B1 and A2', '; B2 and A2')).toEqual(['other']);
    expect(existsSync(CONE_ROOT)).toBe(true);
  });
});
