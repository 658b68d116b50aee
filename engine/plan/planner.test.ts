import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { PlanningError } from '../errors.ts';
import { parseWindDefinition } from '../wind/index.ts';
import type { WindDefinition } from '../wind/types.ts';
import { checkPlan, planChunks, planToString } from './index.ts';
import { CHUNK_BYTES } from './planner.ts';
import type { PlanSummary } from './types.ts';

const caseFile = (name: string, file: string): string => join(REFERENCE_ROOT, name, file);

const VALID = [
  'simple_cylinder',
  'sized_simple_cylinder',
  'multi_layer',
  'avbay_single',
  'conf_valid_hoop',
  'conf_valid_helical',
  'conf_valid_skip',
  'conf_valid_multilayer',
] as const;

function loadDefinition(name: string): WindDefinition {
  const path = caseFile(name, 'input.wind');
  return parseWindDefinition(readFileSync(path), path);
}

function expectedJson(name: string): {
  plan?: PlanSummary;
  error?: { level: string; detail: string };
} {
  return JSON.parse(readFileSync(caseFile(name, 'expected.json'), 'utf8'));
}

/** The SHA-256 of every xyz output, from the table in the reference README. */
function readmeXyzHashes(): Map<string, string> {
  const readme = readFileSync(join(REFERENCE_ROOT, 'README.md'), 'utf8');
  const hashes = new Map<string, string>();
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const xyz = cells[6]?.replace(/`/g, '');
    if (cells[1] !== undefined && xyz !== undefined && /^[0-9a-f]{64}$/.test(xyz)) hashes.set(cells[1], xyz);
  }
  return hashes;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'latin1').digest('hex');
const linesOf = (gcode: string): string[] => gcode.slice(0, -1).split('\n');

describe('reference cases (spec §8)', () => {
  const hashes = readmeXyzHashes();

  it('finds an xyz hash in the README for every valid case', () => {
    expect([...hashes.keys()].sort()).toEqual([...VALID].sort());
  });

  for (const name of VALID) {
    it(`${name}: xab and xyz outputs and the plan summary match`, () => {
      const definition = loadDefinition(name);
      const plan = expectedJson(name).plan;
      const xab = planToString(definition);
      expect(xab.gcode === readFileSync(caseFile(name, 'expected-xab.gcode'), 'latin1')).toBe(true);
      expect(xab.summary).toStrictEqual(plan);

      const xyz = planToString(definition, { axisFormat: 'xyz' });
      const xyzFile = caseFile(name, 'expected-xyz.gcode');
      if (existsSync(xyzFile)) expect(xyz.gcode === readFileSync(xyzFile, 'latin1')).toBe(true);
      expect(sha256(xyz.gcode)).toBe(hashes.get(name));
      expect(xyz.summary).toStrictEqual({ ...plan, axisFormat: 'xyz' });
    });
  }

  for (const name of ['conf_invalid_wind_angle_out_of_range', 'conf_invalid_lead_in_exceeds_length']) {
    it(`${name}: planning fails with the expected detail`, () => {
      const error = expectedJson(name).error;
      expect(error?.level).toBe('planning');
      const definition = loadDefinition(name);
      expect(() => checkPlan(definition)).toThrow(new PlanningError(error?.detail));
      expect(() => planToString(definition)).toThrow(PlanningError);
    });
  }
});

describe('streaming', () => {
  it('yields chunks of at most one buffer from a single reused buffer, and checkPlan agrees', () => {
    const definition = loadDefinition('avbay_single');
    const expected = readFileSync(caseFile('avbay_single', 'expected-xab.gcode'));
    const chunks = planChunks(definition);
    const buffers = new Set<ArrayBufferLike>();
    let offset = 0;
    let mismatch = -1;
    let count = 0;
    let step = chunks.next();
    while (!step.done) {
      const chunk = step.value;
      buffers.add(chunk.buffer);
      expect(chunk.length).toBeGreaterThan(0);
      expect(chunk.length).toBeLessThan(CHUNK_BYTES + 4096);
      if (mismatch < 0 && Buffer.compare(chunk, expected.subarray(offset, offset + chunk.length)) !== 0) {
        mismatch = offset;
      }
      offset += chunk.length;
      count++;
      step = chunks.next();
    }
    expect(mismatch).toBe(-1);
    expect(offset).toBe(expected.length);
    expect(count).toBeGreaterThanOrEqual(Math.floor(expected.length / (CHUNK_BYTES + 4096)));
    expect(buffers.size).toBe(1);
    expect(checkPlan(definition)).toStrictEqual(step.value);
  });

  it('writes only the header, init and feed lines when there are no layers', () => {
    const definition = { ...loadDefinition('simple_cylinder'), layers: [] };
    const { gcode, summary } = planToString(definition, { axisFormat: 'xyz' });
    expect(gcode).toBe(
      '; Parameters {"mandrel":{"diameter":70,"windLength":500},"tow":{"width":7,"thickness":0.5}}\n' +
        'G0 X0 Y0 Z0\nG0 F9000\n',
    );
    expect(summary).toStrictEqual({
      commands: 3,
      timeSeconds: 0,
      towMeters: 0,
      axisFormat: 'xyz',
      layers: [],
    });
  });

  it('writes header values with hdr() and the feed with fmt6()', () => {
    const base = loadDefinition('conf_valid_skip');
    const definition: WindDefinition = {
      ...base,
      mandrelParameters: {
        diameter: 1e22,
        windLength: 69.75,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
      towParameters: { width: 0.00001, thickness: 9.525 },
      defaultFeedRate: 0.0078125,
      layers: [],
    };
    expect(planToString(definition).gcode).toBe(
      '; Parameters {"mandrel":{"diameter":10000000000000000000000,"windLength":69.75},' +
        '"tow":{"width":1e-05,"thickness":9.525}}\nG0 X0 A0 B0\nG0 F0.007812\n',
    );
  });
});

describe('long lines', () => {
  it('writes header and verbose lines longer than the buffer slack in full', () => {
    const big = Number.MAX_VALUE;
    const digits = BigInt(big).toString();
    const definition: WindDefinition = {
      schemaVersion: '1.0',
      mandrelParameters: {
        diameter: big,
        windLength: big,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
      towParameters: { width: big, thickness: big },
      defaultFeedRate: big,
      layers: [],
      machine: null,
    };
    const { gcode } = planToString(definition, { verbose: true });
    expect(gcode).toBe(
      `; Verbose output enabled\n; Parameters {"mandrel":{"diameter":${digits},"windLength":${digits}},` +
        `"tow":{"width":${digits},"thickness":${digits}}}\nG0 X0 A0 B0\nG0 F${digits}\n`,
    );
  });

  it('writes the verbose comment of a move before guard 10 rejects its line', () => {
    const definition = {
      ...loadDefinition('conf_valid_skip'),
      layers: [{ windType: 'skip' as const, mandrelRotation: 1e300 }],
    };
    const chunks = planChunks(definition, { verbose: true });
    expect(() => chunks.next()).toThrow(/^Layer 1: a coordinate is out of range/);
  });
});

describe('worked checks (spec §4.8)', () => {
  it('simple_cylinder', () => {
    const { gcode, summary } = planToString(loadDefinition('simple_cylinder'));
    const lines = linesOf(gcode);
    expect(lines.slice(4, 8)).toEqual([
      'G0 X0 A180 B0',
      'G0 X0 A180 B-5.710593',
      'G0 X0 A180 B-5.710593',
      'G0 X1 A231.428571 B-5.710593',
    ]);
    expect(lines[507]).toBe('G0 X500 A26074.285714 B0');
    expect(lines.slice(-4)).toEqual([
      'G0 X0 A51968.571429 B0',
      'G92 X0 A128.571429 B0',
      'G0 X0 A360 B0',
      'G92 A0',
    ]);
    expect(lines.length).toBe(1014);
    expect(summary.layers[0]?.commands).toBe(1010);
    expect(summary.towMeters).toBe(31.90307689884485);
    expect(summary.timeSeconds).toBe(212.68717932563493);
  });

  it('simple_cylinder, verbose: 1023 lines, layer 1018', () => {
    const { gcode, summary } = planToString(loadDefinition('simple_cylinder'), { verbose: true });
    const lines = linesOf(gcode);
    expect(lines.length).toBe(1023);
    expect(summary.commands).toBe(1023);
    expect(summary.layers[0]?.commands).toBe(1018);
    expect(lines[0]).toBe('; Verbose output enabled');
    expect(lines).toContain(
      '; Segmented move {carriage:0 mandrel:180 delivery_head:-5.710593} -> ' +
        '{carriage:500 mandrel:25894.285714 delivery_head:-5.710593} in 501 steps',
    );
    // Verbose comments change no motion line and no metric.
    const plain = planToString(loadDefinition('simple_cylinder'));
    expect(lines.filter((line) => !line.startsWith('; '))).toEqual(
      linesOf(plain.gcode).filter((line) => !line.startsWith('; ')),
    );
    expect(summary.towMeters).toBe(plain.summary.towMeters);
  });

  it('conf_valid_skip, verbose, in full', () => {
    const { gcode, summary } = planToString(loadDefinition('conf_valid_skip'), { verbose: true });
    expect(gcode).toBe(
      [
        '; Verbose output enabled',
        '; Parameters {"mandrel":{"diameter":70,"windLength":500},"tow":{"width":7,"thickness":0.5}}',
        'G0 X0 A0 B0',
        'G0 F9000',
        '; Layer 1 of 1: skip',
        '; Move {carriage:0 mandrel:0 delivery_head:0} -> {carriage:0 mandrel:45 delivery_head:0}',
        'G0 X0 A45 B0',
        'G92 A0',
        '',
      ].join('\n'),
    );
    expect(summary.commands).toBe(8);
    expect(summary.layers[0]?.commands).toBe(3);
  });

  it('conf_valid_skip: tow and time', () => {
    const { gcode, summary } = planToString(loadDefinition('conf_valid_skip'));
    expect(linesOf(gcode).slice(-2)).toEqual(['G0 X0 A45 B0', 'G92 A0']);
    expect(summary.towMeters).toBe(0.02748893571891069);
    expect(summary.timeSeconds).toBe(0.1832595714594046);
  });

  it('conf_valid_helical', () => {
    const { gcode, summary } = planToString(loadDefinition('conf_valid_helical'));
    const lines = linesOf(gcode);
    const start = lines.indexOf('; \tPattern: 1/13 Circuit: 1/2');
    expect(lines.slice(start + 3, start + 9)).toEqual([
      'G0 X0 A0 B-10',
      'G0 X1 A1.146255 B-19',
      'G0 X2 A2.292511 B-28',
      'G0 X3 A3.438766 B-37',
      'G0 X4 A4.585021 B-46',
      'G0 X5 A5.731277 B-55',
    ]);
    const passEnd = lines.indexOf('G0 X500 A573.127667 B-55');
    expect(lines.slice(passEnd, passEnd + 3)).toEqual([
      'G0 X500 A573.127667 B-55',
      'G0 X500 A588.127667 B-10',
      'G0 X500 A540 B0',
    ]);
    expect(lines.slice(-4)).toEqual(['G0 X0 A33120 B0', 'G92 X0 A360 B0', 'G0 X0 A360 B0', 'G92 A0']);
    expect(summary.layers[0]?.commands).toBe(26292);
    expect(lines.filter((line) => line.startsWith('; \tPattern: ')).length).toBe(26);
  });

  it('multi_layer helical', () => {
    const { gcode, summary } = planToString(loadDefinition('multi_layer'));
    const lines = linesOf(gcode);
    expect(lines).toContain('G0 X30 A70.388691 B-35');
    const circuit2 = lines.indexOf('; \tPattern: 1/9 Circuit: 2/2');
    expect(lines[circuit2 + 1]).toBe('G0 X0 A5940 B0');
    const pattern2 = lines.indexOf('; \tPattern: 2/9 Circuit: 1/2');
    expect(lines[pattern2 + 1]).toBe('G0 X0 A11900 B0');
    expect(summary.layers[1]?.commands).toBe(34042);
    expect(lines.at(-4)).toBe('G0 X0 A107820 B0');
  });
});
