// Property tests over generated definitions: what must hold for every valid definition, and how
// every invalid document must fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanningError, WindFileError } from '../errors.ts';
import { simulateGcode } from '../gcode/index.ts';
import { gcd } from '../numeric.ts';
import { parseWindText } from '../wind/index.ts';
import type { HelicalLayer, Layer, WindDefinition } from '../wind/types.ts';
import { checkPlan, planToString } from './index.ts';

const RUNS = 100;

interface Machine {
  diameter: number;
  windLength: number;
  width: number;
}

const machine: fc.Arbitrary<Machine> = fc.record({
  diameter: fc.double({ min: 20, max: 90, noNaN: true }),
  windLength: fc.double({ min: 40, max: 260, noNaN: true }),
  width: fc.double({ min: 4, max: 14, noNaN: true }),
});

/**
 * A helical layer that passes every planning check by construction: the pattern number divides
 * the circuit count, the skip index is coprime with it, and the lock angle is a multiple of 180°
 * (so the per-circuit advance is 0 mod 360 and the slot stride is the skip index itself).
 */
function helical(m: Machine): fc.Arbitrary<HelicalLayer | undefined> {
  return fc
    .record({
      windAngle: fc.double({ min: 15, max: 75, noNaN: true }),
      lockTurns: fc.integer({ min: 1, max: 4 }),
      leadInFraction: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
      leadOutDegrees: fc.double({ min: 1, max: 120, noNaN: true }),
      skipInitialNearLock: fc.boolean(),
      choice: fc.nat(),
    })
    .map((h) => {
      const circumference = Math.PI * m.diameter;
      const circuits = Math.ceil(circumference / (m.width / Math.cos((h.windAngle * Math.PI) / 180)));
      const patterns = [];
      for (let p = 2; p <= circuits; p++) if (circuits % p === 0) patterns.push(p);
      if (patterns.length === 0) return undefined;
      const patternNumber = patterns[h.choice % patterns.length] as number;
      const skips = [];
      for (let s = 1; s < patternNumber; s++) if (gcd(s, patternNumber) === 1) skips.push(s);
      return {
        windType: 'helical' as const,
        windAngle: h.windAngle,
        patternNumber,
        skipIndex: skips[h.choice % skips.length] as number,
        lockDegrees: 180 * h.lockTurns,
        leadInMM: m.windLength * h.leadInFraction,
        leadOutDegrees: h.leadOutDegrees,
        skipInitialNearLock: h.skipInitialNearLock,
      };
    });
}

const validDefinition: fc.Arbitrary<WindDefinition> = machine.chain((m) =>
  fc
    .record({
      layers: fc.array(
        fc.oneof(
          fc.constant<Layer>({ windType: 'hoop', terminal: false }),
          fc
            .double({ min: -720, max: 720, noNaN: true })
            .map<Layer>((r) => ({ windType: 'skip', mandrelRotation: r })),
          helical(m).map<Layer>((h) => h ?? { windType: 'hoop', terminal: false }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      terminal: fc.boolean(),
      thickness: fc.double({ min: 0.1, max: 2, noNaN: true }),
      feed: fc.double({ min: 100, max: 20000, noNaN: true }),
    })
    .map(({ layers, terminal, thickness, feed }) => ({
      schemaVersion: '1.0',
      layers: terminal ? [...layers, { windType: 'hoop' as const, terminal: true }] : layers,
      mandrelParameters: {
        diameter: m.diameter,
        windLength: m.windLength,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
      towParameters: { width: m.width, thickness },
      defaultFeedRate: feed,
      machine: null,
    })),
);

const VERBOSE_ONLY = /^; (Verbose output enabled|Move |Segmented move )/;

describe('planner properties over generated valid definitions', () => {
  it('plans without throwing; the simulated distance equals the planned tow', () => {
    fc.assert(
      fc.property(validDefinition, (definition) => {
        const { gcode, summary } = planToString(definition);
        expect(gcode.split('\n').length - 1).toBe(summary.commands);
        const simulated = simulateGcode(gcode);
        const tow = summary.towMeters * 1000;
        const scale = Math.max(Math.abs(tow), 1);
        expect(Math.abs(simulated.total_distance_mm - tow) / scale).toBeLessThan(1e-6);
        expect(simulated.commands).toBe(summary.commands);
      }),
      { numRuns: RUNS },
    );
  });

  it('writes xyz exactly as xab with the axis letters swapped', () => {
    fc.assert(
      fc.property(validDefinition, (definition) => {
        const xab = planToString(definition, { axisFormat: 'xab' }).gcode;
        const xyz = planToString(definition, { axisFormat: 'xyz' }).gcode;
        const swapped = xab.replace(
          /^(G0|G92)( .*)$/gm,
          (_line, code: string, words: string) => code + words.replaceAll(' A', ' Y').replaceAll(' B', ' Z'),
        );
        expect(xyz).toBe(swapped);
      }),
      { numRuns: RUNS },
    );
  });

  it('writes verbose output that is the plain output plus comments', () => {
    fc.assert(
      fc.property(validDefinition, (definition) => {
        const plain = planToString(definition).gcode;
        const verbose = planToString(definition, { verbose: true });
        const stripped = verbose.gcode
          .split('\n')
          .filter((line) => !VERBOSE_ONLY.test(line))
          .join('\n');
        expect(stripped).toBe(plain);
        expect(checkPlan(definition, { verbose: true })).toEqual(verbose.summary);
      }),
      { numRuns: RUNS },
    );
  });
});

/** Anything JSON can hold, including the non-finite numbers Python's decoder accepts. */
const junk: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      1e308,
      -0,
      'NaN',
      'Infinity',
      '',
      ' 12 ',
      'hoop',
      'helical',
      'skip',
    ),
    fc.double(),
    fc.integer(),
    fc.string({ maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom(
        'windType',
        'wind_type',
        'windAngle',
        'patternNumber',
        'skipIndex',
        'lockDegrees',
        'leadInMM',
        'x',
      ),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

function serialise(value: unknown): string {
  // JSON.stringify writes non-finite numbers as null; the .wind format also has NaN and Infinity.
  return JSON.stringify(value, (_key, v) =>
    typeof v === 'number' && !Number.isFinite(v) ? `__${v}__` : v,
  ).replace(/"__(NaN|Infinity|-Infinity)__"/g, '$1');
}

const invalidDocument: fc.Arbitrary<string> = fc.oneof(
  // Plausible documents with one part replaced by junk.
  fc
    .record({
      layers: fc.oneof(fc.array(junk, { maxLength: 5 }), junk),
      mandrelParameters: fc.oneof(junk, fc.record({ diameter: junk, windLength: junk })),
      towParameters: fc.oneof(junk, fc.record({ width: junk, thickness: junk })),
      defaultFeedRate: junk,
      schemaVersion: fc.oneof(junk, fc.constantFrom('1.0', '2.0', '1', ' 1.5 ')),
    })
    .map(serialise),
  // Valid shapes with out-of-range numbers.
  fc
    .record({
      windAngle: fc.double(),
      patternNumber: fc.integer({ min: -3, max: 40 }),
      skipIndex: fc.integer({ min: -3, max: 40 }),
      lockDegrees: fc.double(),
      leadInMM: fc.double(),
      diameter: fc.double(),
      windLength: fc.double({ max: 500 }),
    })
    .map((h) =>
      serialise({
        layers: [{ windType: 'helical', ...h, leadOutDegrees: 10 }],
        mandrelParameters: { diameter: h.diameter, windLength: h.windLength },
        towParameters: { width: 7, thickness: 0.5 },
        defaultFeedRate: 9000,
      }),
    ),
  // Deeply nested junk, huge arrays and broken text.
  fc.integer({ min: 1, max: 2000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 0, max: 20000 }).map((n) => `{"layers": [${'{"windType":"skip"},'.repeat(n)}1]}`),
  fc.string({ maxLength: 40 }),
);

describe('generated invalid definitions', () => {
  it('fail with WindFileError or PlanningError and a message, never another exception', () => {
    fc.assert(
      fc.property(invalidDocument, (text) => {
        try {
          const definition = parseWindText(text, '/jobs/generated.wind');
          // Some generated documents are valid after all: plan those only while they stay small
          // (a 50-million-line job is valid too, but no unit test should wait for it).
          const { diameter, windLength } = definition.mandrelParameters;
          if (definition.layers.length > 5 || diameter > 100 || windLength > 300) return;
          checkPlan(definition);
        } catch (error) {
          expect(error instanceof WindFileError || error instanceof PlanningError, String(error)).toBe(true);
          expect((error as Error).message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
