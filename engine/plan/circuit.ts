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
  /**
   * The meridian direction (unit, r and z parts) of the frustum the fibre runs onto from each
   * station, pointing the way it travels; 0, 0 at a turnaround. With sin α = c/r it gives the
   * fibre's tangent, which the delivery eye's kinematics follow.
   */
  mr: number[];
  mz: number[];
}

function push(
  path: PathStations,
  z: number,
  r: number,
  phi: number,
  s: number,
  mr: number,
  mz: number,
): void {
  path.z.push(z);
  path.r.push(r);
  path.phi.push(phi);
  path.s.push(s);
  path.mr.push(mr);
  path.mz.push(mz);
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
    push(path, from + (to - from) * t, vessel.R, phi0 + turn * t, s0 + fibre * t, 0, Math.sign(to - from));
  }
}

/**
 * Appends a dome's turnaround: in to the tangency, then the mirror image back to the equator. A
 * station at a frustum junction heads onto the next frustum; the turnaround heads nowhere along
 * the meridian.
 */
function turnaround(
  path: PathStations,
  dome: GeodesicStations,
  meridian: Meridian,
  zEquator: number,
  outward: 1 | -1,
): void {
  const phi0 = path.phi[path.phi.length - 1] ?? 0;
  const s0 = path.s[path.s.length - 1] ?? 0;
  const last = dome.r.length - 1;
  const phiT = dome.phi[last] ?? 0;
  const sT = dome.s[last] ?? 0;
  const poleward = (segment: number): [number, number] => {
    const dr = (meridian.r[segment + 1] ?? 0) - (meridian.r[segment] ?? 0);
    const dz = outward * ((meridian.z[segment + 1] ?? 0) - (meridian.z[segment] ?? 0));
    const length = Math.hypot(dr, dz);
    return length > 0 ? [dr / length, dz / length] : [0, 0];
  };
  // The equator station, written by the cylinder, heads onto the dome's first frustum.
  const [mr0, mz0] = poleward(dome.segment[1] ?? 0);
  path.mr[path.mr.length - 1] = mr0;
  path.mz[path.mz.length - 1] = mz0;
  path.turns.push(path.z.length + last - 1);
  for (let j = 1; j <= last; j++) {
    const [mr, mz] = j < last ? poleward(dome.segment[j + 1] ?? 0) : [0, 0];
    push(
      path,
      zEquator + outward * (dome.z[j] ?? 0),
      dome.r[j] ?? 0,
      phi0 + (dome.phi[j] ?? 0),
      s0 + (dome.s[j] ?? 0),
      mr,
      mz,
    );
  }
  for (let j = last - 1; j >= 0; j--) {
    const phi = phi0 + 2 * phiT - (dome.phi[j] ?? 0);
    const [mr, mz] = j > 0 ? poleward(dome.segment[j] ?? 0) : [0, outward];
    const s = s0 + 2 * sT - (dome.s[j] ?? 0);
    push(path, zEquator + outward * (dome.z[j] ?? 0), dome.r[j] ?? 0, phi, s, j > 0 ? -mr : 0, -mz);
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
  const path: PathStations = { z: [0], r: [vessel.R], phi: [0], s: [0], turns: [], mr: [0], mz: [1] };
  cylinder(path, vessel, c, spacing, 0, vessel.L);
  turnaround(path, endDome, vessel.end, vessel.L, 1);
  cylinder(path, vessel, c, spacing, vessel.L, 0);
  turnaround(path, startDome, vessel.start, 0, -1);
  return path;
}
