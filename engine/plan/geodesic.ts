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

/**
 * Fibre length of the geodesic over one frustum from radius `ra` to `rb`, both ≥ c, of meridian
 * length `length`: in the development |√(rb² − c²) − √(ra² − c²)| / sin φh, written without the
 * cancellation of a nearly cylindrical frustum (a cylinder gives length / cos α).
 */
export function frustumFibreLength(ra: number, rb: number, length: number, c: number): number {
  const sa = Math.sqrt((ra - c) * (ra + c));
  const sb = Math.sqrt((rb - c) * (rb + c));
  return (length * (ra + rb)) / (sa + sb);
}

/** The part of frustum `i` the geodesic crosses: from r[i] to r[i+1], or to r = c where it turns. */
function crossedPart(
  meridian: Meridian,
  i: number,
  c: number,
): { ra: number; rb: number; length: number; dz: number } {
  const ra = meridian.r[i] ?? 0;
  const rEnd = meridian.r[i + 1] ?? 0;
  const dz = (meridian.z[i + 1] ?? 0) - (meridian.z[i] ?? 0);
  const length = Math.hypot(dz, rEnd - ra);
  if (rEnd >= c) return { ra, rb: rEnd, length, dz };
  const fraction = (ra - c) / (ra - rEnd);
  return { ra, rb: c, length: length * fraction, dz: dz * fraction };
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
    const part = crossedPart(meridian, i, c);
    turn += frustumTurn(part.ra, part.rb, part.length, c);
    // The tangency parallel lies on this frustum: the geodesic turns back here.
    if (part.rb === c) return { turn, segment: i, z: (z[i] ?? 0) + part.dz };
  }
  return null;
}

/** Points of a geodesic: z and r on the meridian, mandrel angle φ (radians) and fibre length s. */
export interface GeodesicStations {
  z: number[];
  r: number[];
  phi: number[];
  s: number[];
  /** Index of the frustum each station lies on (the one it ends, for a frustum's last station). */
  segment: number[];
}

/**
 * True when a geodesic of constant c runs over the whole meridian without reaching r = c: it ends
 * at the boss edge still above c (an isotensoid's boss sits just above its own c).
 */
export function endsAboveTangency(meridian: Meridian, c: number): boolean {
  const R = meridian.r[0] ?? 0;
  return c > 0 && c < R && domeCrossing(meridian, c) === null && meridian.r.every((r) => r > c);
}

/**
 * Stations of the geodesic from the equator to its tangency, no more than `spacing` of fibre
 * apart (so the steep turn near the pole is as finely sampled as the rest), every frustum
 * junction included. Along a frustum √(r² − c²) varies linearly with fibre length, which places
 * them in closed form. Null when the geodesic cannot turn on this dome (see `domeCrossing`),
 * unless `turnAtEnd`: then a geodesic that runs over the whole meridian above c ends at its last
 * vertex (the boss edge), where the caller turns it back.
 */
export function geodesicStations(
  meridian: Meridian,
  c: number,
  spacing: number,
  turnAtEnd = false,
): GeodesicStations | null {
  if (!(spacing > 0)) throw new RangeError('station spacing must be positive');
  if (domeCrossing(meridian, c) === null && !(turnAtEnd && endsAboveTangency(meridian, c))) return null;
  const out: GeodesicStations = {
    z: [meridian.z[0] ?? 0],
    r: [meridian.r[0] ?? 0],
    phi: [0],
    s: [0],
    segment: [0],
  };
  let phi = 0;
  let s = 0;
  for (let i = 0; i + 1 < meridian.r.length; i++) {
    const { ra, rb, length, dz } = crossedPart(meridian, i, c);
    const fibre = frustumFibreLength(ra, rb, length, c);
    const sa = Math.sqrt((ra - c) * (ra + c));
    const sb = Math.sqrt((rb - c) * (rb + c));
    const pieces = Math.max(1, Math.ceil(fibre / spacing));
    for (let k = 1; k <= pieces; k++) {
      const t = k / pieces;
      const sr = sa + (sb - sa) * t;
      const r = k === pieces ? rb : Math.sqrt(c * c + sr * sr);
      // Share of the frustum's meridian covered: (r − ra)/(rb − ra), rewritten to survive rb ≈ ra.
      const share = k === pieces ? 1 : (((ra + rb) / (sa + sb)) * t * (sr + sa)) / (r + ra);
      out.z.push((meridian.z[i] ?? 0) + dz * share);
      out.r.push(r);
      out.phi.push(phi + frustumTurn(ra, r, length * share, c));
      out.s.push(s + fibre * t);
      out.segment.push(i);
    }
    phi += frustumTurn(ra, rb, length, c);
    s += fibre;
    if (rb === c) return out;
  }
  return out;
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
