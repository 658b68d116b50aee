// The frustum-chain geodesic against closed forms that do not use it: great circles on a sphere,
// reference values for ellipsoids (mpmath tanh-sinh, 30 digits), the cylinder's L·tan α / R and the
// cone planner's own θ.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONE_REFERENCE_ROOT } from '../../reference/paths.ts';
import { RAD } from '../numeric.ts';
import { parseWindDefinition } from '../wind/index.ts';
import type { HelicalLayer } from '../wind/types.ts';
import { coneKinematics } from './cone.ts';
import { circuitTurn, cylinderTurn, domeCrossing, frustumTurn, geodesicStations } from './geodesic.ts';
import { ellipsoidMeridian, hemisphereMeridian, type Meridian, profileMeridian } from './meridian.ts';

const degreesToTangency = (R: number, aspect: number, c: number, segments: number, opening = 0): number =>
  (domeCrossing(ellipsoidMeridian(R, aspect, segments, opening), c)?.turn ?? Number.NaN) * RAD;

describe('geodesic on a hemisphere (a great circle)', () => {
  it('turns exactly 90° from the equator to the tangency, whatever c, to 1e-3° at 1,000 frusta', () => {
    for (const c of [5, 22.5, 30, 50, 75]) {
      expect(Math.abs(degreesToTangency(100, 1, c, 1000) - 90)).toBeLessThan(1e-3);
      // A dome's turnaround is the way in and the way out again: 180°.
      expect(Math.abs(2 * degreesToTangency(100, 1, c, 1000) - 180)).toBeLessThan(2e-3);
    }
  });

  it('near the equator (c close to R) the few frusta before the tangency need the default 4,096', () => {
    // Uniform in the polar angle, only acos(c/R)/(π/2) of the frusta lie before the tangency:
    // at c = 0.95 R and 1,000 frusta the error is about 2e-3°.
    for (const c of [95, 99]) expect(Math.abs(degreesToTangency(100, 1, c, 4096) - 90)).toBeLessThan(1e-3);
  });

  it('converges as the chain is refined', () => {
    const error = (segments: number) => Math.abs(degreesToTangency(100, 1, 30, segments) - 90);
    expect(error(10)).toBeGreaterThan(error(100));
    expect(error(100)).toBeGreaterThan(error(1000));
    expect(error(10_000)).toBeLessThan(1e-5);
  });

  it('turns back on the parallel r = c, at z = √(R² − c²), inside a dome cut at its polar opening', () => {
    // Polar opening 20 mm across, band 7 mm: c = 10 + 3.5 (the band's inner edge touches the opening).
    const crossing = domeCrossing(hemisphereMeridian(75, 4096, 10), 13.5);
    expect(crossing).not.toBeNull();
    expect(Math.abs((crossing?.turn ?? 0) * RAD - 90)).toBeLessThan(1e-4);
    // The chord's sagitta at 4,096 frusta bounds how far the chain is from the sphere.
    const sagitta = 75 * (1 - Math.cos(Math.PI / 2 / 4096 / 2));
    expect(Math.abs((crossing?.z ?? 0) - Math.sqrt(75 * 75 - 13.5 * 13.5))).toBeLessThan(10 * sagitta + 1e-9);
  });

  it('has no crossing when c is not below the equator or the opening is wider than c', () => {
    expect(domeCrossing(hemisphereMeridian(75, 100), 75)).toBeNull();
    expect(domeCrossing(hemisphereMeridian(75, 100), 80)).toBeNull();
    expect(domeCrossing(hemisphereMeridian(75, 100, 20), 15)).toBeNull();
  });
});

describe('geodesic on an ellipsoid', () => {
  // Reference values of the notes (vessel-planning.md §2.3), computed by quadrature in mpmath.
  const oracles = [
    { R: 100, b: 60, c: 30, degrees: 80.3290081142 },
    { R: 100, b: 50, c: 20, degrees: 82.2665960451 },
    { R: 75, b: 45, c: 25, degrees: 79.2332585397 },
    { R: 100, b: 100, c: 30, degrees: 90 },
  ];
  for (const { R, b, c, degrees } of oracles) {
    it(`R ${R}, b ${b}, c ${c}: ${degrees}° equator to tangency, to 1e-4° at 10,000 frusta`, () => {
      expect(Math.abs(degreesToTangency(R, b / R, c, 10_000) - degrees)).toBeLessThan(1e-4);
    });
  }
});

describe('frusta, cylinders and whole circuits', () => {
  it('a single frustum turns the mandrel as the cone planner does over a pass', () => {
    const path = join(CONE_REFERENCE_ROOT, 'cone_reducer', 'input.wind');
    const definition = parseWindDefinition(readFileSync(path), path);
    const cone = coneKinematics(definition.layers[0] as HelicalLayer, definition.mandrelParameters);
    const turn = frustumTurn(cone.r0, cone.r1, Math.hypot(cone.L, cone.r0 - cone.r1), cone.c) * RAD;
    expect(Math.abs(turn - cone.thetaFull)).toBeLessThan(1e-9 * cone.thetaFull);
  });

  it('a frustum of equal radii is a cylinder: Δφ = L·tan α / R, and nearly equal radii lose no digits', () => {
    const R = 75;
    const c = 22.5;
    const tanAlpha = c / Math.sqrt(R * R - c * c);
    expect(cylinderTurn(R, 400, c)).toBeCloseTo((400 * tanAlpha) / R, 14);
    expect(frustumTurn(R, R, 400, c)).toBeCloseTo(cylinderTurn(R, 400, c), 14);
    const nearly = frustumTurn(R, R * (1 - 1e-12), 400, c);
    expect(Math.abs(nearly - cylinderTurn(R, 400, c))).toBeLessThan(1e-9);
  });

  it('a circuit between two hemispheres advances 2π + 2L·tan α / R', () => {
    const R = 75;
    const L = 300;
    const c = 22.5;
    const dome = hemisphereMeridian(R, 4096, 10);
    const expected = 2 * Math.PI + (2 * L * c) / (R * Math.sqrt(R * R - c * c));
    expect(Math.abs((circuitTurn(R, L, c, dome, dome) ?? 0) - expected) * RAD).toBeLessThan(4e-4);
  });

  it('a profile given as points is used as it is', () => {
    // A 45° cone from r 50 to r 10, then a flat disc: the closed form of the single frustum.
    const meridian = profileMeridian([
      [0, 50],
      [40, 10],
      [40, 0],
    ]);
    const c = 20;
    const expected = (Math.acos(c / 50) * Math.hypot(40, 40)) / 40;
    expect(domeCrossing(meridian, c)?.turn).toBeCloseTo(expected, 14);
    expect(() => profileMeridian([[0, 50]])).toThrow(RangeError);
    expect(() =>
      profileMeridian([
        [0, 50],
        [-1, 40],
      ]),
    ).toThrow(RangeError);
  });
});

/**
 * Clairaut's constant of the chord between two stations on frustum `i`, from the unrolled frustum
 * alone: a point is at ρ = r / sin φh from the apex and polar angle ψ = φ·sin φh, and a chord's
 * distance from the apex, times sin φh, is r·sin α on it. Written so that sin φh → 0 (a cylinder)
 * is the plane development (z, r·φ).
 */
function developedClairaut(
  meridian: Meridian,
  i: number,
  a: [number, number, number],
  b: [number, number, number],
) {
  const [za, ra, pa] = a;
  const [zb, rb, pb] = b;
  const q =
    Math.abs((meridian.r[i + 1] ?? 0) - (meridian.r[i] ?? 0)) /
    Math.hypot(
      (meridian.z[i + 1] ?? 0) - (meridian.z[i] ?? 0),
      (meridian.r[i + 1] ?? 0) - (meridian.r[i] ?? 0),
    );
  const dphi = pb - pa;
  // sin(x·q)/q, which is x at q = 0.
  const sinOver = (x: number) => (q === 0 || x === 0 ? x : x * (Math.sin(x * q) / (x * q)));
  const along = Math.hypot(zb - za, rb - ra);
  const half = sinOver(dphi / 2);
  return (ra * rb * sinOver(dphi)) / Math.sqrt(along * along + 4 * ra * rb * half * half);
}

describe('geodesic stations', () => {
  const domes: [string, Meridian, number][] = [
    ['hemisphere R 75, opening 20, c 13.5', hemisphereMeridian(75, 4096, 10), 13.5],
    ['ellipsoid R 100, b 60, c 30', ellipsoidMeridian(100, 0.6, 4096), 30],
    ['ellipsoid R 100, b 50, c 60', ellipsoidMeridian(100, 0.5, 4096), 60],
    [
      'profile with a cylindrical neck',
      profileMeridian([
        [0, 80],
        [30, 80],
        [60, 50],
        [90, 20],
        [95, 10],
      ]),
      25,
    ],
  ];

  for (const [name, meridian, c] of domes) {
    it(`${name}: Clairaut from unrolled coordinates of consecutive stations to 1e-9·R`, () => {
      const stations = geodesicStations(meridian, c, 1);
      if (stations === null) throw new Error('no geodesic');
      const R = meridian.r[0] ?? 0;
      let worst = 0;
      for (let j = 1; j < stations.r.length; j++) {
        const point = (k: number): [number, number, number] => [
          stations.z[k] ?? 0,
          stations.r[k] ?? 0,
          stations.phi[k] ?? 0,
        ];
        const estimate = developedClairaut(meridian, stations.segment[j] ?? 0, point(j - 1), point(j));
        worst = Math.max(worst, Math.abs(estimate - c));
      }
      expect(worst).toBeLessThanOrEqual(1e-9 * R);
    });

    it(`${name}: stations at most 1 mm of fibre apart, ending on r = c at the crossing's turn`, () => {
      const stations = geodesicStations(meridian, c, 1);
      const crossing = domeCrossing(meridian, c);
      if (stations === null || crossing === null) throw new Error('no geodesic');
      const last = stations.r.length - 1;
      expect(stations.r[last]).toBe(c);
      expect(stations.phi[last]).toBeCloseTo(crossing.turn, 12);
      expect(stations.z[last]).toBeCloseTo(crossing.z, 12);
      for (let j = 1; j <= last; j++) {
        const ds = (stations.s[j] ?? 0) - (stations.s[j - 1] ?? 0);
        expect(ds).toBeGreaterThan(0);
        expect(ds).toBeLessThanOrEqual(1 + 1e-12);
        expect(stations.phi[j]).toBeGreaterThanOrEqual(stations.phi[j - 1] ?? 0);
      }
    });
  }

  it("a hemisphere's geodesic is a quarter great circle: πR/2 of fibre from the equator to the tangency", () => {
    const stations = geodesicStations(hemisphereMeridian(100, 4096), 30, 1);
    const length = stations?.s[stations.s.length - 1] ?? 0;
    expect(Math.abs(length - 50 * Math.PI)).toBeLessThan(1e-6 * length);
  });

  it("every station lies on the ellipsoid within the chain's sagitta", () => {
    const R = 100;
    const b = 60;
    const segments = 4096;
    const stations = geodesicStations(ellipsoidMeridian(R, b / R, segments), 30, 0.5);
    if (stations === null) throw new Error('no geodesic');
    // A chord over dt = (π/2)/segments is at most R·dt long and the ellipse's curvature at most
    // R/b², so the chain departs from it by at most (R/b²)·(R·dt)²/8.
    const sagitta = ((R / (b * b)) * (R * (Math.PI / 2 / segments)) ** 2) / 8;
    for (let j = 0; j < stations.r.length; j++) {
      const r = stations.r[j] ?? 0;
      const z = stations.z[j] ?? 0;
      // Distance to the surface to first order: the level's defect over its gradient.
      const defect = 1 - (r / R) ** 2 - (z / b) ** 2;
      const gradient = 2 * Math.hypot(r / (R * R), z / (b * b));
      expect(Math.abs(defect) / gradient).toBeLessThanOrEqual(sagitta);
    }
  });
});
