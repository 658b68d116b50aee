// The cone's geometry against oracles that do not use its closed form (the development of the
// frustum, a quadrature of the geodesic's azimuth), and the G-code's own invariants (coverage
// slots, the head ramp, both axis formats). The checks are in checks.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONE_REFERENCE_ROOT, REFERENCE_ROOT } from '../../reference/paths.ts';
import { DEG, RAD } from '../numeric.ts';
import { parseWindDefinition } from '../wind/index.ts';
import type { HelicalLayer, Layer, WindDefinition } from '../wind/types.ts';
import { type ConeKinematics, coneFibreAngle, coneKinematics, coneStations, coneTheta } from './cone.ts';
import { planToString } from './index.ts';

// cone_reducer (98 → 54 mm over 120 mm, 6 mm tow; 30°, P 3, lock 180, lead-in 5, lead-out 15).
const reducerPath = join(CONE_REFERENCE_ROOT, 'cone_reducer', 'input.wind');
const reducer = parseWindDefinition(readFileSync(reducerPath), reducerPath);
const reducerLayer = reducer.layers[0] as HelicalLayer;
const helical = (fields: Partial<HelicalLayer> = {}): HelicalLayer => ({ ...reducerLayer, ...fields });
const cone = (layers: Layer[]): WindDefinition => ({ ...reducer, layers });

/** Reducing cones with a wind angle the geodesic can lay end to end. */
const reducingCone: fc.Arbitrary<ConeKinematics> = fc
  .record({
    diameter: fc.double({ min: 40, max: 340, noNaN: true }),
    taper: fc.double({ min: 0.2, max: 0.99, noNaN: true }),
    windLength: fc.double({ min: 20, max: 820, noNaN: true }),
    steepness: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ diameter, taper, windLength, steepness }) => {
    const endDiameter = diameter * taper;
    const maxAngle = Math.min(89, Math.asin(endDiameter / diameter) * RAD);
    const windAngle = 1 + steepness * (maxAngle - 1);
    return coneKinematics(helical({ windAngle }), {
      diameter,
      endDiameter,
      windLength,
      domes: null,
      meridianSegments: 4096,
    });
  });

describe('the geodesic on a cone', () => {
  it('is a straight line in the developed frustum: Clairaut from unrolled coordinates to 1e-9·R', () => {
    // Unrolled, a point at z lies at distance ρ = r/sin φh from the apex and polar angle
    // ψ = θ·sin φh; the distance of the chord between two stations from the apex, times sin φh,
    // is r·sin α on that chord — Clairaut's constant if the path is a geodesic.
    fc.assert(
      fc.property(reducingCone, (k) => {
        const rho = (z: number) => (k.r0 + (k.r1 - k.r0) * (z / k.L)) / k.sinHalfAngle;
        const psi = (z: number) => coneTheta(k, z) * DEG * k.sinHalfAngle;
        let worst = 0;
        for (let i = 1; i <= k.stations; i++) {
          const za = k.L * ((i - 1) / k.stations);
          const zb = k.L * (i / k.stations);
          const ax = rho(za) * Math.cos(psi(za));
          const ay = rho(za) * Math.sin(psi(za));
          const bx = rho(zb) * Math.cos(psi(zb));
          const by = rho(zb) * Math.sin(psi(zb));
          const distance = Math.abs(ax * by - ay * bx) / Math.hypot(bx - ax, by - ay);
          worst = Math.max(worst, Math.abs(distance * k.sinHalfAngle - k.c));
        }
        expect(worst).toBeLessThanOrEqual(1e-9 * k.r0);
      }),
      { numRuns: 60 },
    );
  });

  it('turns the mandrel by the quadrature of dφ/dz = c·√(1 + r′²) / (r·√(r² − c²)) over a pass', () => {
    // Away from tangency the integrand is smooth; Simpson's rule on 20,000 panels is then exact
    // far below the tolerance.
    const awayFromTangency = reducingCone.filter((k) => k.c <= 0.9 * k.r1);
    fc.assert(
      fc.property(awayFromTangency, (k) => {
        const slope = (k.r1 - k.r0) / k.L;
        const f = (z: number) => {
          const r = k.r0 + slope * z;
          return (k.c * Math.sqrt(1 + slope * slope)) / (r * Math.sqrt(r * r - k.c * k.c));
        };
        const panels = 20_000;
        const h = k.L / panels;
        let sum = f(0) + f(k.L);
        for (let i = 1; i < panels; i++) sum += (i % 2 === 1 ? 4 : 2) * f(i * h);
        const quadrature = ((sum * h) / 3) * RAD;
        expect(Math.abs(k.thetaFull - quadrature)).toBeLessThan(1e-7 * Math.max(1, quadrature));
      }),
      { numRuns: 40 },
    );
  });

  it('starts at the wind angle and reaches asin(c / r1) at the small end; θ(0) = 0', () => {
    const k = coneKinematics(helical(), {
      diameter: 98,
      endDiameter: 54,
      windLength: 120,
      domes: null,
      meridianSegments: 4096,
    });
    expect(coneTheta(k, 0)).toBe(0);
    expect(coneFibreAngle(k, 0)).toBeCloseTo(30, 12);
    expect(coneFibreAngle(k, 120)).toBeCloseTo(Math.asin((49 * Math.sin(30 * DEG)) / 27) * RAD, 9);
    for (let z = 1; z <= 120; z++) expect(coneTheta(k, z)).toBeGreaterThan(coneTheta(k, z - 1));
  });

  it('places a station every millimetre, rounding half to even', () => {
    expect(coneStations(120)).toBe(120);
    expect(coneStations(150.5)).toBe(150);
    expect(coneStations(151.5)).toBe(152);
    expect(coneStations(0.4)).toBe(1);
  });
});

describe('cone G-code', () => {
  it('the shipped example is the reference cone_reducer', () => {
    const example = new URL('../../resources/examples/reducing-cone.wind', import.meta.url);
    expect(parseWindDefinition(readFileSync(example), example.pathname)).toEqual(reducer);
  });

  it('an end diameter equal to the diameter is a cylinder, byte for byte', () => {
    const path = join(REFERENCE_ROOT, 'conf_valid_helical', 'input.wind');
    const definition = parseWindDefinition(readFileSync(path), path);
    const golden = readFileSync(join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode'), 'latin1');
    const same = { ...definition.mandrelParameters, endDiameter: definition.mandrelParameters.diameter };
    expect(planToString({ ...definition, mandrelParameters: same }).gcode === golden).toBe(true);
  });

  it('starts the N circuits of a layer in N evenly spaced slots of the large end', () => {
    const { gcode } = planToString(cone([helical()]));
    const lines = gcode.split('\n');
    const starts: number[] = [];
    lines.forEach((line, i) => {
      if (!line.startsWith('; \tPattern:')) return;
      const a = /^G0 X0 A(\S+) B0$/.exec(lines[i + 1] ?? '');
      if (!a) throw new Error(`no out-pass start after line ${i + 1}`);
      starts.push(((Number(a[1]) % 360) + 360) % 360);
    });
    expect(starts).toHaveLength(45);
    const sorted = [...starts].sort((p, q) => p - q);
    const gaps = sorted.map((value, i) => ((sorted[(i + 1) % sorted.length] ?? 0) - value + 360) % 360);
    for (const gap of gaps) expect(Math.abs(gap - 8)).toBeLessThan(1e-5);
  });

  it('writes the same program in the xyz letters', () => {
    const definition = cone([helical(), { windType: 'skip', mandrelRotation: 45 }]);
    const xab = planToString(definition).gcode;
    const xyz = planToString(definition, { axisFormat: 'xyz' });
    const swapped = xab
      .split('\n')
      .map((line) => (line.startsWith('G') ? line.replace(/ A/g, ' Y').replace(/ B/g, ' Z') : line))
      .join('\n');
    expect(xyz.gcode === swapped).toBe(true);
    expect(xyz.summary.axisFormat).toBe('xyz');
  });

  it('ramps the head from its lift to the local lay angle over the lead-in, one station per millimetre', () => {
    const { gcode } = planToString(cone([helical({ leadInMM: 4 })]));
    const lines = gcode.split('\n');
    const first = lines.findIndex((line) => line.startsWith('; \tPattern: 1/15 Circuit: 1/3'));
    // Out pass: to the start, lean to the lift, then each station as a two-point segment.
    expect(lines.slice(first + 1, first + 3)).toEqual(['G0 X0 A0 B0', 'G0 X0 A0 B-10']);
    const stations = lines.slice(first + 3, first + 3 + 2 * 120).filter((_, i) => i % 2 === 1);
    const words = stations.map((line) => line.split(' ').map((word) => Number(word.slice(1))));
    expect(words.map((w) => w[1])).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    const k = coneKinematics(helical(), {
      diameter: 98,
      endDiameter: 54,
      windLength: 120,
      domes: null,
      meridianSegments: 4096,
    });
    words.forEach((w, i) => {
      const z = i + 1;
      const lay = -(90 - coneFibreAngle(k, z));
      const ramp = Math.min(1, z / 4);
      expect(w[3]).toBeCloseTo(-10 + ramp * (lay + 10), 5);
      expect(w[2]).toBeCloseTo(coneTheta(k, z), 5);
    });
  });
});
