// Pattern closure: whatever candidate is picked, the circuits' equator crossings must be N distinct
// slots evenly spaced, with a dwell that never turns the mandrel back.
import { describe, expect, it } from 'vitest';
import { gcd, RAD } from '../numeric.ts';
import { circuitTurn } from './geodesic.ts';
import { ellipsoidMeridian, hemisphereMeridian } from './meridian.ts';
import { equatorCircuits, equatorCrossings, patternCandidates } from './pattern.ts';

/** Gaps (degrees) between the sorted crossings, the last one wrapping round to the first. */
function slotGaps(crossings: number[]): number[] {
  const sorted = crossings.map((a) => a * RAD).sort((a, b) => a - b);
  return sorted.map((a, i) =>
    i + 1 < sorted.length ? (sorted[i + 1] ?? 0) - a : 360 - a + (sorted[0] ?? 0),
  );
}

describe('pattern candidates', () => {
  // R 75, cylinder 300 mm, polar openings 20 mm across, band 7 mm: c = 10 + 3.5.
  const vessels = [
    {
      name: 'two hemispheres',
      start: hemisphereMeridian(75, 4096, 10),
      end: hemisphereMeridian(75, 4096, 10),
    },
    {
      name: 'a hemisphere and an ellipsoid',
      start: hemisphereMeridian(75, 4096, 10),
      end: ellipsoidMeridian(75, 0.6, 4096, 10),
    },
  ];
  for (const { name, start, end } of vessels) {
    it(`${name}: every candidate closes into N evenly spaced slots with a dwell ≥ 0`, () => {
      const turn = circuitTurn(75, 300, 13.5, start, end);
      if (turn === null) throw new Error('no geodesic');
      const candidates = patternCandidates(75, 13.5, 7, turn);
      expect(candidates.length).toBeGreaterThan(20);
      for (const candidate of candidates.slice(0, 25)) {
        expect(candidate.dwell).toBeGreaterThanOrEqual(0);
        expect(candidate.dwell).toBeLessThan(2 * Math.PI);
        const gaps = slotGaps(equatorCrossings(candidate.circuits, turn, candidate.dwell));
        expect(gaps).toHaveLength(candidate.circuits);
        for (const gap of gaps) expect(Math.abs(gap - 360 / candidate.circuits)).toBeLessThan(1e-6);
      }
    });
  }

  it('lists coprime advances only, least dwell first, from the covering circuit count', () => {
    const turn = 2 * Math.PI + 1.234;
    const candidates = patternCandidates(75, 13.5, 7, turn, 1);
    const N = equatorCircuits(75, 13.5, 7);
    // 2π·√(75² − 13.5²) / 7 = 66.2…, so 67 bands cover the equator.
    expect(N).toBe(67);
    expect(new Set(candidates.map((c) => c.circuits))).toEqual(new Set([67, 68]));
    for (const c of candidates) expect(gcd(c.advance, c.circuits)).toBe(1);
    for (let i = 1; i < candidates.length; i++) {
      expect(candidates[i]?.dwell).toBeGreaterThanOrEqual(candidates[i - 1]?.dwell ?? 0);
    }
    const first = candidates.find((c) => c.circuits === 67);
    expect(first?.overlap).toBeGreaterThanOrEqual(0);
    expect(first?.overlap).toBeLessThan(7 / (2 * Math.PI * Math.sqrt(75 * 75 - 13.5 * 13.5)));
  });

  it('a candidate whose advance misses the slots would leave some uncovered: the check notices', () => {
    const turn = 2 * Math.PI + 1.234;
    // Not coprime: q = 2 of N = 68 revisits only 34 slots.
    const dwell = (((2 * Math.PI * 2) / 68 - turn) % (2 * Math.PI)) + 2 * Math.PI;
    const gaps = slotGaps(equatorCrossings(68, turn, dwell));
    expect(Math.max(...gaps)).toBeGreaterThan(360 / 68 + 1);
  });
});
