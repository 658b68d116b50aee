import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { SimulationError } from '../errors.ts';
import { GcodeSimulator, simulateGcode } from './index.ts';
import type { SimulationSummary } from './types.ts';

const validCases = readdirSync(REFERENCE_ROOT).filter((name) =>
  existsSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode')),
);

function referenceFile(name: string, file: string): Uint8Array {
  return new Uint8Array(readFileSync(join(REFERENCE_ROOT, name, file)));
}

function expectedSummary(name: string): SimulationSummary {
  return JSON.parse(readFileSync(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8')).simulate;
}

function inChunks(bytes: Uint8Array, size: (k: number) => number): SimulationSummary {
  const simulator = new GcodeSimulator();
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const n = size(k++);
    simulator.push(bytes.subarray(i, i + n));
    i += n;
  }
  return simulator.finish();
}

function randomSizes(seed: number, max: number): (k: number) => number {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return 1 + (s % max);
  };
}

function errorOf(program: string | Uint8Array): string {
  try {
    simulateGcode(program);
  } catch (error) {
    expect(error).toBeInstanceOf(SimulationError);
    return (error as Error).message;
  }
  throw new Error('expected a SimulationError');
}

const H = '; Parameters {"mandrel":{"diameter":70,"windLength":500},"tow":{"width":7,"thickness":0.5}}';
const C0 = Math.PI * 70;
const sq = (v: number): number => v * v;

describe('reference cases', () => {
  it('lists all eight valid cases', () => {
    expect(validCases.sort()).toEqual([
      'avbay_single',
      'conf_valid_helical',
      'conf_valid_hoop',
      'conf_valid_multilayer',
      'conf_valid_skip',
      'multi_layer',
      'simple_cylinder',
      'sized_simple_cylinder',
    ]);
  });

  for (const name of validCases) {
    it(`${name}: reproduces expected.json simulate exactly`, () => {
      const expected = expectedSummary(name);
      expect(simulateGcode(referenceFile(name, 'expected-xab.gcode'))).toEqual(expected);
      if (existsSync(join(REFERENCE_ROOT, name, 'expected-xyz.gcode'))) {
        expect(simulateGcode(referenceFile(name, 'expected-xyz.gcode'))).toEqual(expected);
      }
    });
  }

  it('gives identical results whatever the chunking', () => {
    const small = referenceFile('simple_cylinder', 'expected-xab.gcode');
    expect(inChunks(small, () => 1)).toEqual(expectedSummary('simple_cylinder'));
    const medium = referenceFile('conf_valid_helical', 'expected-xab.gcode');
    expect(inChunks(medium, randomSizes(11, 4096))).toEqual(expectedSummary('conf_valid_helical'));
    expect(inChunks(medium, randomSizes(29, 37))).toEqual(expectedSummary('conf_valid_helical'));
  });

  it('accepts the program as text as well as bytes', () => {
    const text = new TextDecoder().decode(referenceFile('conf_valid_skip', 'expected-xab.gcode'));
    expect(simulateGcode(text)).toEqual(expectedSummary('conf_valid_skip'));
  });

  it('reads CRLF and CR-only line ends and a leading BOM', () => {
    const text = new TextDecoder().decode(referenceFile('sized_simple_cylinder', 'expected-xab.gcode'));
    const expected = expectedSummary('sized_simple_cylinder');
    const crlf = new TextEncoder().encode(text.replaceAll('\n', '\r\n'));
    expect(simulateGcode(crlf)).toEqual(expected);
    expect(inChunks(crlf, randomSizes(5, 3))).toEqual(expected);
    expect(simulateGcode(text.replaceAll('\n', '\r'))).toEqual(expected);
    const bom = new TextEncoder().encode(`\ufeff${text}`);
    expect(simulateGcode(bom)).toEqual(expected);
    expect(inChunks(bom, () => 1)).toEqual(expected);
  });
});

describe('nominal model', () => {
  it('counts non-blank lines and applies feed, carriage and mandrel as §5 says', () => {
    const program = [
      H,
      '',
      'G21',
      'G90',
      'G94',
      '; comment',
      'G0 X0 A0 B0',
      'G0 F6000',
      'G0 X10',
      'G0 A90 B30',
      '  ',
      'G1 B-5',
    ];
    const result = simulateGcode(program.join('\n'));
    const d2 = Math.sqrt(0 + sq((90 / 360) * C0));
    const time = (10 / 6000) * 60 + (d2 / 6000) * 60;
    expect(result).toEqual({
      commands: 10,
      moves: 2,
      estimated_time_s: time,
      total_distance_mm: 10 + d2,
      tow_length_mm: 10 + d2,
      average_feed_rate_mmpm: ((10 + d2) / time) * 60,
    });
  });

  it('uses d = sqrt(sq(dx) + sq((da / 360) × C0)) in that order', () => {
    const result = simulateGcode(`${H}\nG0 F9000\nG0 X0.1 A0.7\nG0 X12.345678 A-33.3`);
    const step = (dx: number, da: number) => Math.sqrt(dx * dx + (da / 360) * C0 * ((da / 360) * C0));
    const d1 = step(0.1, 0.7);
    const d2 = step(12.345678 - 0.1, -33.3 - 0.7);
    expect(result.total_distance_mm).toBe(d1 + d2);
    expect(result.estimated_time_s).toBe((d1 / 9000) * 60 + (d2 / 9000) * 60);
  });

  it('reports zeros for a program without moves', () => {
    expect(simulateGcode(H)).toEqual({
      commands: 1,
      moves: 0,
      estimated_time_s: 0,
      total_distance_mm: 0,
      tow_length_mm: 0,
      average_feed_rate_mmpm: 0,
    });
  });

  it('respects G92 and does not count zero-length, head-only or feed-only lines', () => {
    const result = simulateGcode(
      `${H}\nG0 F600\nG0 X5 A0\nG92 X0 A100 F-3\nG0 X0 A100\nG0 B20\nG0 F300\nG0 X1`,
    );
    expect(result.moves).toBe(2);
    expect(result.total_distance_mm).toBe(6);
    expect(result.estimated_time_s).toBe((5 / 600) * 60 + (1 / 300) * 60);
  });

  it('accepts any M-code without parsing its words', () => {
    const result = simulateGcode(`${H}\nM0\nM84 X Y\nM117 Hello *world* é\nm400\nM117Done\nG0 F60\nG0 X1`);
    expect(result.commands).toBe(8);
    expect(result.moves).toBe(1);
    expect(result.estimated_time_s).toBe((1 / 60) * 60);
  });

  it('adds G4 dwells (P in ms, S in s; S wins) to the time only', () => {
    const result = simulateGcode(`${H}\nG4 P1500\nG4 S2\nG04 P100 S0.25\ng4 s1.5\nG4\nG4 P-100`);
    expect(result.estimated_time_s).toBe(1.5 + 2 + 0.25 + 1.5);
    expect(result.total_distance_mm).toBe(0);
    expect(result.average_feed_rate_mmpm).toBe(0);
    expect(errorOf(`${H}\nG4 P1x`)).toBe(`Line 2: invalid number in 'P1x'`);
  });

  it('homes the named axes with G28 (all when none is named) without distance or time', () => {
    const all = simulateGcode(`${H}\nG0 F600 X10 A90\nG28\nG0 X10 A90`);
    expect(all.moves).toBe(2);
    const d1 = Math.sqrt(100 + sq((90 / 360) * C0));
    expect(all.total_distance_mm).toBe(d1 + d1);
    const onlyX = simulateGcode(`${H}\nG0 F600 X10 A90\nG28 X\nG0 X10 A90`);
    expect(onlyX.total_distance_mm).toBe(d1 + 10);
    const onlyA = simulateGcode(`${H}\nG0 F600 X10 A90\nG28 A0\nG0 X10 A90`);
    expect(onlyA.moves).toBe(2);
    expect(errorOf(`${H}\nG28 Q`)).toBe(`Line 2: unknown axis letter 'Q' in 'Q'`);
    expect(errorOf(`${H}\nG28 X1.2.3`)).toBe(`Line 2: invalid number in 'X1.2.3'`);
  });

  it('strips N-words and checksums and reads command letters in any case', () => {
    const plain = simulateGcode(`${H}\nG0 X0 A0 B0\nG0 F9000\nG0 X0 A45 B0\nG92 A0\nG0 X3 A10`);
    const framed = simulateGcode(
      `${H}\nN1 G0 X0 A0 B0*99\nN2 G0 F9000*68\nn3 g0 x0 a45 b0 *80\nN4 G92 A0*71\ng1 X3 a10`,
    );
    expect(framed).toEqual(plain);
    // An N-word or checksum alone leaves no command; a bare `N` or a `*` without digits is kept.
    expect(simulateGcode(`${H}\nN7\n*12\nN8 *3`).commands).toBe(4);
    expect(errorOf(`${H}\nN G0`)).toBe(`Line 2: unsupported command 'N'`);
    expect(errorOf(`${H}\nG0 X1*`)).toBe(`Line 2: invalid number in 'X1*'`);
  });

  it('splits words on any White_Space character and treats W-only lines as blank', () => {
    const spaced = simulateGcode(
      `${H}\n\u3000\u00a0\n\u2003\nG0\u00a0F60\u3000X1\u2009A0\u205f\nG0\u000bX2\u000cA0\u0085`,
    );
    expect(spaced.commands).toBe(3);
    expect(spaced.moves).toBe(2);
    expect(spaced.estimated_time_s).toBe((1 / 60) * 60 + (1 / 60) * 60);
    // U+0085 and U+2028 are whitespace, not line breaks.
    expect(errorOf(`${H}\nG0 F60 X1\u2028T1`)).toBe(`Line 2: unknown axis letter 'T' in 'T1'`);
  });

  it('lets non-ASCII text through comments', () => {
    const result = simulateGcode(`${H}\n; Wickel für Ø 70 mm — 日本語\nG0 F60 X1 ; ✓`);
    expect(result.commands).toBe(3);
    expect(result.moves).toBe(1);
  });
});

describe('header', () => {
  it('finds the first `; Parameters ` line after trimming and applies D to the whole program', () => {
    const first = simulateGcode(`${H}\nG0 F600\nG0 X3 A20\nG4 S1\nG0 X1 A-20`);
    const late = simulateGcode(`G0 F600\nG0 X3 A20\nG4 S1\nG0 X1 A-20\n  \u3000${H}\u00a0`);
    expect(late).toEqual(first);
    expect(first.total_distance_mm).toBeGreaterThan(0);
  });

  it('ignores later header lines and lines that only look like one', () => {
    const result = simulateGcode(`;Parameters {}\n; Parameters\n${H}\n; Parameters {"bad"\nG0 F60 X1`);
    expect(result.commands).toBe(5);
    expect(errorOf('; parameters {"mandrel":{"diameter":70}}')).toBe(
      'Unable to locate Parameters header in program',
    );
  });

  it('accepts Python JSON extras but requires a finite positive numeric mandrel.diameter', () => {
    const ok = (json: string) => simulateGcode(`; Parameters ${json}`).commands;
    expect(ok('{"mandrel":{"diameter":70}}')).toBe(1);
    expect(
      ok('  {"mandrel":{"diameter":1e2, "x": NaN}, "y": [Infinity, -Infinity], "z": "NaN\\"Infinity"}'),
    ).toBe(1);
    const bad = [
      '{"mandrel":{"diameter":0}}',
      '{"mandrel":{"diameter":-1}}',
      '{"mandrel":{"diameter":"70"}}',
      '{"mandrel":{"diameter":true}}',
      '{"mandrel":{"diameter":NaN}}',
      '{"mandrel":{"diameter":Infinity}}',
      '{"mandrel":{"diameter":1e400}}',
      '{"mandrel":{"diameter":-Infinity}}',
      '{"mandrel":[70]}',
      '{"mandrel":null}',
      '{"diameter":70}',
      '[{"mandrel":{"diameter":70}}]',
      '{"mandrel":{"diameter":70}',
      '{"mandrel":{"diameter":70}} trailing',
      '{"mandrel":{"diameter":-NaN}}',
    ];
    for (const json of bad) {
      expect(errorOf(`G0 X0\n; Parameters ${json}`), json).toBe(
        'Line 2: invalid Parameters header (expected JSON with a positive mandrel.diameter)',
      );
    }
  });
});

describe('errors', () => {
  it('reports an empty program before anything else', () => {
    expect(errorOf('')).toBe('Program is empty');
    expect(errorOf('\ufeff\n \t\r\n\u3000\u00a0\n')).toBe('Program is empty');
    expect(errorOf('; Parameters \nG0')).toBe('Unable to locate Parameters header in program');
    expect(errorOf(new Uint8Array([0xef, 0xbb, 0xbf, 0x0a, 0x20]))).toBe('Program is empty');
  });

  it('reports a missing or invalid header before any line error', () => {
    expect(errorOf('G20\nG0 X1')).toBe('Unable to locate Parameters header in program');
    expect(errorOf('G20\nT1\n; Parameters {}\nG91')).toBe(
      'Line 3: invalid Parameters header (expected JSON with a positive mandrel.diameter)',
    );
  });

  it('words each command error with its line number', () => {
    const cases: [string, string][] = [
      ['G20', 'G20 (inch units) is not supported; programs must use millimetres (G21)'],
      ['G91', 'G91 (relative positioning) is not supported; programs must use absolute positioning (G90)'],
      ['G93', 'G93 (inverse-time feed) is not supported; programs must use units per minute (G94)'],
      ['T1', `unsupported command 'T1'`],
      ['G2 X1', `unsupported command 'G2'`],
      ['G29', `unsupported command 'G29'`],
      ['G000 X1', `unsupported command 'G000'`],
      ['G0X1', `unsupported command 'G0X1'`],
      ['Mx', `unsupported command 'Mx'`],
      ['ü1', `unsupported command 'ü1'`],
      ['G0 E5', `unknown axis letter 'E' in 'E5'`],
      ['g0 e5', `unknown axis letter 'e' in 'e5'`],
      ['G0 X1 é5', `unknown axis letter 'é' in 'é5'`],
      ['G0 5', `unknown axis letter '5' in '5'`],
      ['G92 Q1', `unknown axis letter 'Q' in 'Q1'`],
      ['G0 X1.2.3', `invalid number in 'X1.2.3'`],
      ['G0 X', `invalid number in 'X'`],
      ['G0 X1e5', `invalid number in 'X1e5'`],
      ['G0 A--1', `invalid number in 'A--1'`],
      ['G0 B.', `invalid number in 'B.'`],
      ['G0 F', `invalid number in 'F'`],
      ['G92 F1,5', `invalid number in 'F1,5'`],
      ['G0 F0', 'feed rate must be positive'],
      ['G0 F-5 X1', 'feed rate must be positive'],
      ['G0 F-0', 'feed rate must be positive'],
      ['G0 X1', 'feed rate must be set before moving the machine'],
      ['G0 A0.5', 'feed rate must be set before moving the machine'],
    ];
    for (const [line, message] of cases) {
      expect(errorOf(`${H}\nG0 X0 A0 B0\n; x\n${line}\nG20`), line).toBe(`Line 4: ${message}`);
    }
  });

  it('checks words in order and lets zero-length and head-only moves go without a feed', () => {
    expect(errorOf(`${H}\nG0 E1 X1.2.3`)).toBe(`Line 2: unknown axis letter 'E' in 'E1'`);
    expect(errorOf(`${H}\nG0 X1.2.3 E1`)).toBe(`Line 2: invalid number in 'X1.2.3'`);
    expect(errorOf(`${H}\nG0 X0 A0 B7\nG0 B9\nG0 X0.5 F10 F0`)).toBe('Line 4: feed rate must be positive');
  });

  it('reports the first failing line', () => {
    expect(errorOf(`${H}\nG0 F100\nT1\nG20\nG0 E1`)).toBe(`Line 3: unsupported command 'T1'`);
    // Before the header, the feed check waits for D but keeps its place in line order.
    expect(errorOf(`G0 X5\nT1\n${H}`)).toBe('Line 1: feed rate must be set before moving the machine');
    expect(errorOf(`T1\nG0 X5\n${H}`)).toBe(`Line 1: unsupported command 'T1'`);
    expect(errorOf(`G0 X0 A0\nG0 F60 X5\nG0 F-1\n${H}`)).toBe('Line 3: feed rate must be positive');
  });

  it('throws from push as soon as the outcome is certain', () => {
    const simulator = new GcodeSimulator();
    const bytes = new TextEncoder().encode(`${H}\nT1\n`);
    expect(() => simulator.push(bytes)).toThrow(`Line 2: unsupported command 'T1'`);
    expect(() => simulator.push(new Uint8Array([0x0a]))).toThrow(`Line 2: unsupported command 'T1'`);
    expect(() => simulator.finish()).toThrow(`Line 2: unsupported command 'T1'`);
  });
});

describe('axis format', () => {
  it('detects xyz from the first G0/G1/G92 line naming Y or Z', () => {
    const xyz = simulateGcode(`${H}\nG0 F60 X1\nG92 Y0\nG0 Y90 Z3`);
    const xab = simulateGcode(`${H}\nG0 F60 X1\nG92 A0\nG0 A90 B3`);
    expect(xyz).toEqual(xab);
    expect(errorOf(`${H}\nG0 F60 X1 Y2\nG0 A5`)).toBe(`Line 3: unknown axis letter 'A' in 'A5'`);
    expect(errorOf(`${H}\nG0 X1 Y2 A3`)).toBe(`Line 2: unknown axis letter 'Y' in 'Y2'`);
  });

  it('passes over lines without A, B, Y or Z words and defaults to xab', () => {
    expect(simulateGcode(`${H}\nG0 F60 X1\nG0 X2\nM0`).moves).toBe(2);
  });

  it('detects on a line that fails for another reason', () => {
    expect(errorOf(`${H}\nG0 Q1 Z5\nG0 A1`)).toBe(`Line 2: unknown axis letter 'Q' in 'Q1'`);
    expect(errorOf(`${H}\nG28 A\nT1\nG0 Q1 Z5`)).toBe(`Line 2: unknown axis letter 'A' in 'A'`);
  });

  it('judges G28 letters before detection by the format detected later', () => {
    expect(simulateGcode(`${H}\nG28 Y\nG0 F60 X1 Y1`).moves).toBe(1);
    expect(errorOf(`${H}\nG28 Y\nG0 F60 X1 A1`)).toBe(`Line 2: unknown axis letter 'Y' in 'Y'`);
    expect(errorOf(`${H}\nG28 Y\nG0 F60 X1`)).toBe(`Line 2: unknown axis letter 'Y' in 'Y'`);
    expect(simulateGcode(`${H}\nG28 A B\nG0 F60 X1`).moves).toBe(1);
    // Each format fails on a different word of the same line.
    expect(errorOf(`${H}\nG28 Y A\nG0 B1`)).toBe(`Line 2: unknown axis letter 'Y' in 'Y'`);
    expect(errorOf(`${H}\nG28 Y A\nG0 Z1`)).toBe(`Line 2: unknown axis letter 'A' in 'A'`);
    expect(errorOf(`G28 Y A\nT1\nG0 Z1\n${H}`)).toBe(`Line 1: unknown axis letter 'A' in 'A'`);
    // The line error of one format must not hide an earlier one of the other.
    expect(errorOf(`${H}\nG28 Z\nT1\nG0 A1`)).toBe(`Line 2: unknown axis letter 'Z' in 'Z'`);
    expect(errorOf(`${H}\nG28 Z\nT1\nG0 Y1`)).toBe(`Line 3: unsupported command 'T1'`);
  });
});
