// One geodesic circuit of a vessel, as stations along the fibre: from the cylinder's start
// (z = 0) along the cylinder, over the end dome to its turnaround and back, along the cylinder
// again and over the start dome back to z = 0, heading out once more. Vessel coordinates: z = 0
// where the cylinder starts, z = L where it ends, the domes outside 0…L. A geodesic is symmetric
// about the meridian of its turnaround, so each dome's way back mirrors its way in.

import { type GeodesicStations, geodesicStations } from './geodesic.ts';
import type { Meridian } from './meridian.ts';

export interface Vessel {
  /** Cylinder (equator) radius. */
  R: number;
  /** Cylinder length. */
  L: number;
  /** Dome at z = 0, its meridian running outward (towards −z). */
  start: Meridian;
  /** Dome at z = L, its meridian running outward (towards +z). */
  end: Meridian;
}

/** Stations of a path: axial position, radius, unwrapped mandrel angle (radians), fibre length. */
export interface PathStations {
  z: number[];
  r: number[];
  phi: number[];
  s: number[];
  /** Indices of the turnaround stations, in path order (the end dome's, then the start dome's). */
  turns: number[];
}

function push(path: PathStations, z: number, r: number, phi: number, s: number): void {
  path.z.push(z);
  path.r.push(r);
  path.phi.push(phi);
  path.s.push(s);
}

/** Appends the cylinder from `from` to `to` (z), stations at most `spacing` of fibre apart. */
function cylinder(
  path: PathStations,
  vessel: Vessel,
  c: number,
  spacing: number,
  from: number,
  to: number,
): void {
  const root = Math.sqrt((vessel.R - c) * (vessel.R + c));
  const fibre = (Math.abs(to - from) * vessel.R) / root;
  const turn = (Math.abs(to - from) * c) / (vessel.R * root);
  const pieces = Math.max(1, Math.ceil(fibre / spacing));
  const phi0 = path.phi[path.phi.length - 1] ?? 0;
  const s0 = path.s[path.s.length - 1] ?? 0;
  for (let k = 1; k <= pieces; k++) {
    const t = k / pieces;
    push(path, from + (to - from) * t, vessel.R, phi0 + turn * t, s0 + fibre * t);
  }
}

/** Appends a dome's turnaround: in to the tangency, then the mirror image back to the equator. */
function turnaround(path: PathStations, dome: GeodesicStations, zEquator: number, outward: 1 | -1): void {
  const phi0 = path.phi[path.phi.length - 1] ?? 0;
  const s0 = path.s[path.s.length - 1] ?? 0;
  const last = dome.r.length - 1;
  const phiT = dome.phi[last] ?? 0;
  const sT = dome.s[last] ?? 0;
  path.turns.push(path.z.length + last - 1);
  for (let j = 1; j <= last; j++) {
    push(
      path,
      zEquator + outward * (dome.z[j] ?? 0),
      dome.r[j] ?? 0,
      phi0 + (dome.phi[j] ?? 0),
      s0 + (dome.s[j] ?? 0),
    );
  }
  for (let j = last - 1; j >= 0; j--) {
    const phi = phi0 + 2 * phiT - (dome.phi[j] ?? 0);
    push(path, zEquator + outward * (dome.z[j] ?? 0), dome.r[j] ?? 0, phi, s0 + 2 * sT - (dome.s[j] ?? 0));
  }
}

/** Domes whose geodesic may turn back at the boss edge rather than at r = c. */
export interface BossTurns {
  start: boolean;
  end: boolean;
}

/**
 * The stations of one circuit of the geodesic r·sin α = c, no more than `spacing` of fibre apart,
 * starting at z = 0, φ = 0. Its last station is z = 0 again, φ advanced by the circuit's turn.
 * Null when a dome cannot turn the geodesic (c not below R, or an opening wider than c), unless
 * `bossTurns` lets that dome's geodesic turn back at its boss edge (see `geodesicStations`).
 */
export function geodesicCircuit(
  vessel: Vessel,
  c: number,
  spacing: number,
  bossTurns: BossTurns = { start: false, end: false },
): PathStations | null {
  const endDome = geodesicStations(vessel.end, c, spacing, bossTurns.end);
  const startDome = geodesicStations(vessel.start, c, spacing, bossTurns.start);
  if (endDome === null || startDome === null) return null;
  const path: PathStations = { z: [0], r: [vessel.R], phi: [0], s: [0], turns: [] };
  cylinder(path, vessel, c, spacing, 0, vessel.L);
  turnaround(path, endDome, vessel.L, 1);
  cylinder(path, vessel, c, spacing, vessel.L, 0);
  turnaround(path, startDome, 0, -1);
  return path;
}
