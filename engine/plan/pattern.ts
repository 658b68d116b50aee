// Pattern closure for geodesic circuits on a vessel. The equator is covered by N bands of width b
// at angle α there: N = ceil(2π·R·cos α / b). Each circuit starts δ after the previous one, with
// δ = (geodesic turn of a circuit + pole dwell) mod 2π. The starts fill the N slots evenly, with no
// gap, exactly when δ = 2π·q/N with gcd(q, N) = 1 (q, the pattern advance). The dwell that makes
// it so, (2π·q/N − turn) mod 2π, is never negative: turning the mandrel back with fibre on a dome
// would slacken the tow. The candidates list is what a winding engineer picks a pattern from.

import { gcd } from '../numeric.ts';

const TWO_PI = 2 * Math.PI;

/** Bands of width `bandWidth` that cover the equator of radius R once at Clairaut constant c. */
export function equatorCircuits(R: number, c: number, bandWidth: number): number {
  return Math.ceil((TWO_PI * Math.sqrt((R - c) * (R + c))) / bandWidth);
}

export interface PatternCandidate {
  /** N: circuits of the layer (equator slots). */
  circuits: number;
  /** q: slots between consecutive circuit starts, coprime with N. */
  advance: number;
  /** Mandrel turn (radians, ≥ 0) added per circuit at the poles to close the pattern. */
  dwell: number;
  /** How much more than once the bands cover the equator: N·b / (2π·R·cos α) − 1. */
  overlap: number;
}

/** (a mod 2π) in [0, 2π). */
function positiveTurn(a: number): number {
  const m = a % TWO_PI;
  return m < 0 ? m + TWO_PI : m;
}

/**
 * Every (N, q) for N from the covering count up to `extraCircuits` more, with the dwell each
 * needs after a circuit whose geodesic turns the mandrel by `circuitTurn` (radians). Sorted by
 * dwell, then by overlap.
 */
export function patternCandidates(
  R: number,
  c: number,
  bandWidth: number,
  circuitTurn: number,
  extraCircuits = 2,
): PatternCandidate[] {
  const first = equatorCircuits(R, c, bandWidth);
  const circumference = TWO_PI * Math.sqrt((R - c) * (R + c));
  const candidates: PatternCandidate[] = [];
  for (let N = first; N <= first + extraCircuits; N++) {
    const overlap = (N * bandWidth) / circumference - 1;
    for (let q = 1; q < N || (N === 1 && q === 1); q++) {
      if (gcd(q, N) !== 1) continue;
      candidates.push({
        circuits: N,
        advance: q,
        dwell: positiveTurn((TWO_PI * q) / N - circuitTurn),
        overlap,
      });
    }
  }
  return candidates.sort((a, b) => a.dwell - b.dwell || a.overlap - b.overlap);
}

/**
 * Where each of the N circuits crosses the equator (radians in [0, 2π)), in winding order, the
 * first at 0: what coverage is checked on.
 */
export function equatorCrossings(circuits: number, circuitTurn: number, dwell: number): number[] {
  const crossings: number[] = [];
  let at = 0;
  for (let j = 0; j < circuits; j++) {
    crossings.push(positiveTurn(at));
    at += circuitTurn + dwell;
  }
  return crossings;
}
