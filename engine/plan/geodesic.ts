// The geodesic of Clairaut's relation r·sin α = c on a chain of frusta, in closed form. On one
// frustum (half-angle φh, sin φh = |dr|/ds) the unrolled surface is a plane sector in which the
// geodesic is a straight line at distance c/sin φh from the apex, so between two parallels it
// turns the mandrel by |acos(c/r_b) − acos(c/r_a)| / sin φh; across a junction the angle to the
// common parallel is continuous, so Clairaut's constant carries over exactly. A cylinder segment is
// the limit φh → 0 (Δφ = Δs·tan α / r), which the form used here reaches without a special case.

import type { Meridian } from './meridian.ts';

/** asin(x) / x, with its limit 1 at 0. */
function asinOverX(x: number): number {
  return x === 0 ? 1 : Math.asin(x) / x;
}

/**
 * Mandrel turn (radians) of the geodesic over one frustum from radius `ra` to `rb`, both ≥ c, of
 * meridian length `length`. Written as asin of sin(Δ acos) so that a nearly cylindrical frustum
 * (|rb − ra| ≪ length) loses no digits to cancellation.
 */
export function frustumTurn(ra: number, rb: number, length: number, c: number): number {
  const sa = Math.sqrt((ra - c) * (ra + c));
  const sb = Math.sqrt((rb - c) * (rb + c));
  // sin(acos(c/rb) − acos(c/ra)) = c·(rb − ra)·(ra + rb) / (ra·rb·(sa + sb)); divided by (rb − ra)
  // it stays finite as the frustum turns into a cylinder.
  const perRadius = (c * (ra + rb)) / (ra * rb * (sa + sb));
  const sine = Math.min(1, perRadius * Math.abs(rb - ra));
  return length * perRadius * asinOverX(sine);
}

/** Mandrel turn (radians) over a frustum from `ra` > c down to the tangency r = c, and no further. */
export function frustumTurnToTangency(ra: number, rb: number, length: number, c: number): number {
  return (Math.acos(c / ra) * length) / Math.abs(rb - ra);
}

export interface DomeCrossing {
  /** Mandrel turn from the equator to the tangency parallel r = c, radians. */
  turn: number;
  /** Index of the frustum in which the geodesic turns back. */
  segment: number;
  /** Axial position of the tangency, measured like the meridian's z. */
  z: number;
}

/**
 * The geodesic of constant c from the dome's equator (the meridian's first vertex) to where it
 * touches the parallel r = c and turns back. Null when it cannot: c is not below the equator
 * radius, or the meridian ends (at its polar opening) before r comes down to c.
 */
export function domeCrossing(meridian: Meridian, c: number): DomeCrossing | null {
  const { z, r } = meridian;
  const R = r[0] ?? 0;
  if (!(c > 0 && c < R)) return null;
  let turn = 0;
  for (let i = 0; i + 1 < r.length; i++) {
    const ra = r[i] ?? 0;
    const rb = r[i + 1] ?? 0;
    const dz = (z[i + 1] ?? 0) - (z[i] ?? 0);
    const length = Math.hypot(dz, rb - ra);
    if (rb >= c) {
      turn += frustumTurn(ra, rb, length, c);
      continue;
    }
    // ra ≥ c > rb: the tangency parallel lies on this frustum.
    const fraction = (ra - c) / (ra - rb);
    return {
      turn: turn + frustumTurnToTangency(ra, rb, length, c),
      segment: i,
      z: (z[i] ?? 0) + fraction * dz,
    };
  }
  return null;
}

/** Mandrel turn (radians) of the geodesic along a cylinder of radius R and length L. */
export function cylinderTurn(R: number, L: number, c: number): number {
  return (L * c) / (R * Math.sqrt((R - c) * (R + c)));
}

/**
 * Mandrel turn (radians) of one circuit, pole to pole and back, with no dwell: both cylinder
 * crossings and a full turnaround (in and out again) on each dome. Null when a dome cannot turn the
 * geodesic (see `domeCrossing`).
 */
export function circuitTurn(
  R: number,
  L: number,
  c: number,
  startDome: Meridian,
  endDome: Meridian,
): number | null {
  const start = domeCrossing(startDome, c);
  const end = domeCrossing(endDome, c);
  if (start === null || end === null) return null;
  return 2 * cylinderTurn(R, L, c) + 2 * start.turn + 2 * end.turn;
}
