import { describe, expect, it } from 'vitest';
import { PlanningError } from '../errors.ts';
import type { HelicalLayer, Layer, WindDefinition } from '../wind/types.ts';
import {
  checkLayer,
  estimatedLayerLines,
  initialCheckState,
  type LayerKinematics,
  lockConditionText,
} from './checks.ts';
import type { HelicalKinematics } from './kinematics.ts';

/** The helical kinematics a check returned, or null for any other layer. */
const helicalOf = (k: LayerKinematics): HelicalKinematics | null =>
  k !== null && 'numCircuits' in k ? k : null;

import { checkPlan, planToString } from './index.ts';

function definition(layers: Layer[], overrides: Partial<WindDefinition> = {}): WindDefinition {
  return {
    schemaVersion: '1.0',
    layers,
    mandrelParameters: {
      diameter: 70,
      windLength: 500,
      endDiameter: null,
      domes: null,
      meridianSegments: 4096,
    },
    towParameters: { width: 7, thickness: 0.5 },
    machine: null,
    defaultFeedRate: 9000,
    ...overrides,
  };
}

function helical(fields: Partial<HelicalLayer> = {}): HelicalLayer {
  return {
    windType: 'helical',
    windAngle: 35,
    patternNumber: 2,
    skipIndex: 1,
    lockDegrees: 180,
    leadInMM: 5,
    leadOutDegrees: 15,
    skipInitialNearLock: false,
    ...fields,
  };
}

const hoop = (terminal = false): Layer => ({ windType: 'hoop', terminal });
const skip = (mandrelRotation: number): Layer => ({ windType: 'skip', mandrelRotation });

function planningMessage(def: WindDefinition): string {
  try {
    checkPlan(def);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanningError);
    return (error as PlanningError).message;
  }
  throw new Error('planning did not fail');
}

describe('lock conditions (checks 8 and 9): the worked examples of §3', () => {
  it('P 3, skipIndex 1, lockDegrees 100: condition 1', () => {
    // w 5.5 at 35° gives 33 circuits, divisible by 3, so planning reaches the lock checks.
    const def = definition([helical({ patternNumber: 3, lockDegrees: 100 })], {
      towParameters: { width: 5.5, thickness: 0.5 },
    });
    expect(planningMessage(def)).toBe(
      'Layer 1: lockDegrees 100.0° produces a per-circuit mandrel advance of 200° (mod 360°), which is not ' +
        'divisible by the in-pattern slot width of 120° (= 360 / patternNumber 3). Circuits will overlap and ' +
        'leave bare mandrel strips. lockDegrees must be a multiple of 60°. Nearest valid values: 60°, 180°, 240°',
    );
  });

  it('P 4, skipIndex 1, lockDegrees 45: condition 2 with stride 2', () => {
    const def = definition([helical({ patternNumber: 4, lockDegrees: 45, windAngle: 55 })], {
      towParameters: { width: 4, thickness: 0.5 },
    });
    expect(planningMessage(def)).toBe(
      'Layer 1: lockDegrees 45.0° with skipIndex 1 and patternNumber 4 produces an intra-pattern slot stride ' +
        'of 2 (in units of 90°), which is not coprime with patternNumber (gcd = 2). All in-pattern circuits ' +
        'will alias onto fewer positions, leaving bare strips. Nearest valid lockDegrees values: 90°, 180°, 270°',
    );
  });

  it('P 7, lockDegrees 500: g6 values and suggestions', () => {
    // The §3 example's suggestions are those of skipIndex 3; with skipIndex 1 they would be
    // 102.857°, 128.571°, 180° (77.1429° fails on float error: 2v % slot is just below the slot).
    expect(lockConditionText(helical({ patternNumber: 7, skipIndex: 3, lockDegrees: 500 }))).toBe(
      'lockDegrees 500.0° produces a per-circuit mandrel advance of 280° (mod 360°), which is not divisible ' +
        'by the in-pattern slot width of 51.4286° (= 360 / patternNumber 7). Circuits will overlap and leave ' +
        'bare mandrel strips. lockDegrees must be a multiple of 25.7143°. Nearest valid values: ' +
        '128.571°, 180°, 205.714°',
    );
  });

  it('passes good lock values and P = 1', () => {
    expect(lockConditionText(helical())).toBeNull();
    expect(lockConditionText(helical({ patternNumber: 3, lockDegrees: 180 }))).toBeNull();
    expect(lockConditionText(helical({ patternNumber: 1, lockDegrees: 7 }))).toBeNull();
  });

  it('fails a remainder just below the slot width', () => {
    // m = 2 × 179.9999999 = 359.9999998, and m % 180 = 179.9999998 > 5e-7.
    expect(lockConditionText(helical({ lockDegrees: 179.9999999 }))).toBe(
      'lockDegrees 179.9999999° produces a per-circuit mandrel advance of 360° (mod 360°), which is not ' +
        'divisible by the in-pattern slot width of 180° (= 360 / patternNumber 2). Circuits will overlap and ' +
        'leave bare mandrel strips. lockDegrees must be a multiple of 90°. Nearest valid values: 180°, 360°, 540°',
    );
  });

  it('suggests multiples of 180° when no candidate passes', () => {
    // At 1e20 the candidates (c + d) × 90 are no longer multiples of 90 after rounding.
    expect(lockConditionText(helical({ lockDegrees: 1e20 }))).toMatch(
      /^lockDegrees 1e\+20° produces a per-circuit mandrel advance of .* Nearest valid values: multiples of 180°$/,
    );
    expect(lockConditionText(helical({ skipIndex: 2 }))).toMatch(
      /^lockDegrees 180\.0° with skipIndex 2 .* stride of 0 .*\(gcd = 2\)\. .* values: 90°, 270°, 450°$/,
    );
  });
});

describe('static checks 1–7', () => {
  it('rejects a layer after a terminal hoop', () => {
    expect(planningMessage(definition([hoop(true), skip(10)]))).toBe(
      'Layer 2: terminal layer must be the final entry in the definition',
    );
  });

  it('rejects wind angles outside 1–89°, with the angle as Python repr', () => {
    expect(planningMessage(definition([helical({ windAngle: 89.5 })]))).toBe(
      'Layer 1: wind angle 89.5° must be between 1.0° and 89.0°',
    );
    expect(planningMessage(definition([helical({ windAngle: 0.00001 })]))).toBe(
      'Layer 1: wind angle 1e-05° must be between 1.0° and 89.0°',
    );
  });

  it('rejects skipIndex ≥ patternNumber, non-coprime pairs, long lead-ins and indivisible circuit counts', () => {
    expect(planningMessage(definition([helical({ skipIndex: 2 })]))).toBe(
      'Layer 1: skipIndex must be less than patternNumber',
    );
    expect(planningMessage(definition([helical({ patternNumber: 4, skipIndex: 2 })]))).toBe(
      'Layer 1: skipIndex and patternNumber must be coprime for full coverage',
    );
    expect(planningMessage(definition([helical({ leadInMM: 500 })]))).toBe(
      'Layer 1: leadInMM (500.0mm) must be less than the mandrel windLength (500.0mm); a longer lead-in ' +
        'drives the carriage off the mandrel into negative coordinates',
    );
    // w 6 at 35° gives 31 circuits.
    expect(
      planningMessage(
        definition([helical({ patternNumber: 4 })], { towParameters: { width: 6, thickness: 0.5 } }),
      ),
    ).toBe('Layer 1: computed circuit count is not divisible by patternNumber (31 % 4 != 0)');
  });

  it('keeps the order of the checks within a layer', () => {
    // Angle (2) before size (3), size before skipIndex (4), lead-in (6) before divisibility (7).
    const huge = {
      mandrelParameters: {
        diameter: 70,
        windLength: 1e9,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
    };
    expect(planningMessage(definition([helical({ windAngle: 95, skipIndex: 5 })], huge))).toMatch(
      /wind angle 95\.0°/,
    );
    expect(planningMessage(definition([helical({ skipIndex: 5 })], huge))).toBe(
      'Layer 1: the program would exceed 50000000 G-code lines',
    );
    expect(
      planningMessage(
        definition([helical({ patternNumber: 4, leadInMM: 600 })], {
          towParameters: { width: 6, thickness: 0.5 },
        }),
      ),
    ).toMatch(/^Layer 1: leadInMM \(600\.0mm\)/);
  });
});

/** A reducing cone (schemaVersion 1.1): 98 → 54 mm over 120 mm unless given. */
function coneDefinition(layers: Layer[], diameter = 98, endDiameter = 54, windLength = 120, width = 6) {
  return definition(layers, {
    schemaVersion: '1.1',
    mandrelParameters: { diameter, windLength, endDiameter, domes: null, meridianSegments: 4096 },
    towParameters: { width, thickness: 0.5 },
  });
}

/** cone_reducer's layer: 30°, P 3. */
const coneHelical = (fields: Partial<HelicalLayer> = {}) =>
  helical({ windAngle: 30, patternNumber: 3, ...fields });

describe('cone checks, in the reference order', () => {
  it('refuses a hoop on a cone before anything else about the layer', () => {
    expect(planningMessage(coneDefinition([coneHelical(), hoop(true)]))).toBe(
      'Layer 2: hoop layers on a cone are not supported yet',
    );
    expect(planningMessage(coneDefinition([hoop()], 54, 98))).toBe(
      'Layer 1: hoop layers on a cone are not supported yet',
    );
  });

  it('checks the wind-angle bounds before the frustum, and the frustum before the angle', () => {
    expect(planningMessage(coneDefinition([coneHelical({ windAngle: 95 })], 54, 98))).toBe(
      'Layer 1: wind angle 95.0° must be between 1.0° and 89.0°',
    );
    expect(planningMessage(coneDefinition([coneHelical({ windAngle: 80 })], 54, 98))).toBe(
      'Layer 1: cone requires a reducing frustum with r0 > r1 (got r0=27.0, r1=49.0); the wind angle anchors at the large end r0, so mount the large end at z=0',
    );
    expect(planningMessage(coneDefinition([coneHelical({ windAngle: 34 })]))).toBe(
      'Layer 1: wind angle 34.0° is too steep for the cone: the geodesic (Clairaut C=27.4mm) cannot reach the small-end radius 27mm. Reduce the wind angle to <= 33.44°',
    );
  });

  it('counts circuits at the large end for the coverage checks', () => {
    // 98 mm at 30° with a 6 mm tow: ceil(π·98·cos 30° / 6) = 45 circuits, not divisible by 2.
    expect(planningMessage(coneDefinition([coneHelical({ patternNumber: 2 })]))).toBe(
      'Layer 1: computed circuit count is not divisible by patternNumber (45 % 2 != 0)',
    );
    expect(planningMessage(coneDefinition([coneHelical({ leadInMM: 120 })]))).toContain(
      'leadInMM (120.0mm) must be less than',
    );
  });

  it('plans skip layers on any cone, expanding ones included', () => {
    const { summary } = planToString(coneDefinition([skip(30)], 54, 98));
    expect(summary.layers.map((layer) => layer.commands)).toEqual([2]);
  });

  it('estimates the exact line count of cone layers (check 3)', () => {
    const layers: Layer[] = [
      coneHelical(),
      skip(12),
      coneHelical({ skipInitialNearLock: true, windAngle: 20, skipIndex: 2, leadInMM: 30 }),
    ];
    for (const windLength of [120, 80.5, 81.5]) {
      const definition = coneDefinition(layers, 98, 54, windLength, 7.5);
      const { summary } = planToString(definition);
      const state = initialCheckState();
      layers.forEach((layer, i) => {
        const kinematics = helicalOf(checkLayer(i + 1, layer, definition, state));
        const stations = kinematics?.cone?.stations ?? null;
        expect(estimatedLayerLines(layer, windLength, kinematics?.numCircuits ?? 0, stations)).toBe(
          summary.layers[i]?.commands,
        );
      });
      expect(state.estimate).toBe(summary.commands);
    }
  });
});

describe('size estimate (check 3)', () => {
  it('equals the real line count of each layer kind', () => {
    const layers: Layer[] = [
      hoop(),
      helical(),
      skip(30),
      helical({ skipInitialNearLock: true, leadInMM: 7.5 }),
      hoop(true),
    ];
    const def = definition(layers);
    const { summary } = planToString(def);
    const state = initialCheckState();
    layers.forEach((layer, i) => {
      const kinematics = helicalOf(checkLayer(i + 1, layer, def, state));
      expect(estimatedLayerLines(layer, 500, kinematics?.numCircuits ?? 0)).toBe(summary.layers[i]?.commands);
    });
    expect(state.estimate).toBe(summary.commands);
  });

  it('accumulates over the layers and fails on the first layer that crosses 50,000,000', () => {
    const def = definition([hoop(), hoop(), skip(5), skip(5)], {
      mandrelParameters: {
        diameter: 70,
        windLength: 12_499_993,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
    });
    const state = initialCheckState();
    checkLayer(1, hoop(), def, state);
    expect(state.estimate).toBe(3 + 1 + 2 * 12_499_993 + 10);
    checkLayer(2, hoop(), def, state);
    checkLayer(3, skip(5), def, state);
    expect(state.estimate).toBe(50_000_000);
    expect(() => checkLayer(4, skip(5), def, state)).toThrow(
      new PlanningError('Layer 4: the program would exceed 50000000 G-code lines'),
    );
  });

  it('fails an infinite estimate', () => {
    const def = definition([helical()], {
      mandrelParameters: {
        diameter: 1e308,
        windLength: 500,
        endDiameter: null,
        domes: null,
        meridianSegments: 4096,
      },
    });
    expect(planningMessage(def)).toBe('Layer 1: the program would exceed 50000000 G-code lines');
  });
});

describe('generation guards (10 and 11) and the interleaving of checks and generation', () => {
  it('rejects a coordinate of 1e15 or more while generating', () => {
    const tiny = { towParameters: { width: 1e-12, thickness: 0.5 } };
    expect(planningMessage(definition([hoop()], tiny))).toBe(
      'Layer 1: a coordinate is out of range (not finite, or 1e15 or more); check the mandrel, tow and layer parameters',
    );
    expect(planningMessage(definition([skip(10), skip(1e15)]))).toMatch(
      /^Layer 2: a coordinate is out of range/,
    );
    expect(planToString(definition([skip(999999999999999)])).gcode).toContain('G0 X0 A999999999999999 B0\n');
  });

  it('rejects a non-finite time or tow after the layer', () => {
    expect(planningMessage(definition([skip(45)], { defaultFeedRate: 1e-310 }))).toBe(
      'Layer 1: the time or tow estimate is not a finite number; check the mandrel diameter and defaultFeedRate',
    );
    expect(
      planningMessage(
        definition([skip(45)], {
          mandrelParameters: {
            diameter: 1e300,
            windLength: 500,
            endDiameter: null,
            domes: null,
            meridianSegments: 4096,
          },
        }),
      ),
    ).toMatch(/^Layer 1: the time or tow estimate/);
  });

  it('generates layer i before checking layer i + 1', () => {
    const tiny = { towParameters: { width: 1e-12, thickness: 0.5 } };
    expect(planningMessage(definition([hoop(), helical({ windAngle: 95 })], tiny))).toMatch(
      /^Layer 1: a coordinate is out of range/,
    );
    expect(
      planningMessage(definition([skip(45), helical({ windAngle: 95 })], { defaultFeedRate: 1e-310 })),
    ).toMatch(/^Layer 1: the time or tow estimate/);
    expect(planningMessage(definition([skip(45), helical({ windAngle: 95 })]))).toBe(
      'Layer 2: wind angle 95.0° must be between 1.0° and 89.0°',
    );
  });
});
