// A whole circuit of a vessel: continuous in space, spaced by fibre length, Clairaut's relation
// everywhere (recomputed from the 3D chords, independent of how φ was found), and turning the
// mandrel by the circuit's closed-form turn.
import { describe, expect, it } from 'vitest';
import { geodesicCircuit, type Vessel } from './circuit.ts';
import { circuitTurn } from './geodesic.ts';
import { ellipsoidMeridian, hemisphereMeridian } from './meridian.ts';

const vessels: [string, Vessel, number][] = [
  [
    'R 75, L 300, two hemispheres with 20 mm openings, c 13.5',
    { R: 75, L: 300, start: hemisphereMeridian(75, 4096, 10), end: hemisphereMeridian(75, 4096, 10) },
    13.5,
  ],
  [
    'R 100, L 120, a hemisphere and a 0.6 ellipsoid, c 40',
    { R: 100, L: 120, start: hemisphereMeridian(100, 4096, 20), end: ellipsoidMeridian(100, 0.6, 4096, 20) },
    40,
  ],
];

const point = (path: { z: number[]; r: number[]; phi: number[] }, j: number) => {
  const r = path.r[j] ?? 0;
  const phi = path.phi[j] ?? 0;
  return [r * Math.cos(phi), r * Math.sin(phi), path.z[j] ?? 0] as const;
};

describe('geodesic circuit of a vessel', () => {
  for (const [name, vessel, c] of vessels) {
    it(`${name}: ends where it started, turned by the circuit's closed form`, () => {
      const path = geodesicCircuit(vessel, c, 1);
      if (path === null) throw new Error('no geodesic');
      const last = path.z.length - 1;
      expect(path.z[last]).toBe(0);
      expect(path.r[last]).toBe(vessel.R);
      const turn = circuitTurn(vessel.R, vessel.L, c, vessel.start, vessel.end) ?? 0;
      expect(Math.abs((path.phi[last] ?? 0) - turn)).toBeLessThan(1e-12 * turn);
      expect(Math.min(...path.z)).toBeLessThan(0);
      expect(Math.max(...path.z)).toBeGreaterThan(vessel.L);
      expect(Math.min(...path.r)).toBe(c);
    });

    it(`${name}: stations ≤ 1 mm of fibre apart, each chord as long as its fibre to 1e-3`, () => {
      const path = geodesicCircuit(vessel, c, 1);
      if (path === null) throw new Error('no geodesic');
      for (let j = 1; j < path.z.length; j++) {
        const ds = (path.s[j] ?? 0) - (path.s[j - 1] ?? 0);
        expect(ds).toBeGreaterThan(0);
        expect(ds).toBeLessThanOrEqual(1 + 1e-12);
        const [ax, ay, az] = point(path, j - 1);
        const [bx, by, bz] = point(path, j);
        const chord = Math.hypot(bx - ax, by - ay, bz - az);
        expect(chord).toBeLessThanOrEqual(ds * (1 + 1e-9));
        expect(chord).toBeGreaterThan(ds * (1 - 1e-3));
      }
    });

    it(`${name}: r·sin α = c on every chord, α read from the 3D chord at its middle`, () => {
      const path = geodesicCircuit(vessel, c, 1);
      if (path === null) throw new Error('no geodesic');
      let worst = 0;
      for (let j = 1; j < path.z.length; j++) {
        const [ax, ay, az] = point(path, j - 1);
        const [bx, by, bz] = point(path, j);
        const [mx, my] = [(ax + bx) / 2, (ay + by) / 2];
        const rm = Math.hypot(mx, my);
        const chord = Math.hypot(bx - ax, by - ay, bz - az);
        // The chord's azimuthal component over its length is sin α; r at the middle of the chord.
        const sinAlpha = ((bx - ax) * -my + (by - ay) * mx) / (rm * chord);
        worst = Math.max(worst, Math.abs(rm * sinAlpha - c));
      }
      // The chord's middle sits inside the surface by its sagitta, so a millimetre chord reads c
      // only to about 1e-3 mm; the exact check per frustum is in geodesic.test.ts.
      expect(worst).toBeLessThan(5e-3);
    });
  }

  it('is null when a dome cannot turn the geodesic', () => {
    const vessel = vessels[0]?.[1] as Vessel;
    expect(geodesicCircuit(vessel, 8, 1)).toBeNull();
    expect(geodesicCircuit(vessel, 75, 1)).toBeNull();
  });
});
