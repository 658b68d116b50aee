// The mandrel's surface radius along its axis, for the views: a cone narrows linearly, a vessel's
// domes follow their meridians (engine/plan/meridian.ts) beyond 0…windLength, as the planner
// builds them. The 3D view turns it into a lathe surface and lays the path on it.
import { isotensoidBossRatio, isotensoidMeridian } from '#engine/plan/isotensoid.ts';
import { ellipsoidMeridian, type Meridian, profileMeridian } from '#engine/plan/meridian.ts';
import { vesselDomes } from '#engine/plan/vessel.ts';
import type { Dome, WindDefinition } from '#engine/wind/types.ts';

/** Points (x along the axis, ascending; r ≥ 0) of the surface, joined by straight lines. */
export interface MandrelProfile {
  x: Float32Array;
  r: Float32Array;
}

/** Enough meridian points for a smooth dome on screen, few enough to send with every plan. */
const DOME_POINTS = 96;

/** The dome's meridian as the planner shapes it, or null when the planner could not build it either. */
function domeMeridian(dome: Dome, R: number, band: number): Meridian | null {
  const opening = dome.polarOpeningDiameter / 2;
  if (!(opening < R)) return null;
  try {
    switch (dome.type) {
      case 'hemispherical':
        return ellipsoidMeridian(R, 1, DOME_POINTS, opening);
      case 'ellipsoidal':
        return ellipsoidMeridian(R, dome.aspect ?? 1, DOME_POINTS, opening);
      case 'isotensoid': {
        const shape = opening + band / 2;
        return isotensoidBossRatio(shape / R) === null ? null : isotensoidMeridian(R, shape, DOME_POINTS);
      }
      case 'profile':
        return profileMeridian(dome.points ?? []);
    }
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** The surface of a definition's mandrel, or null for a plain cylinder (radius diameter / 2). */
export function mandrelProfile(definition: WindDefinition): MandrelProfile | null {
  const { diameter, windLength, endDiameter } = definition.mandrelParameters;
  const R = diameter / 2;
  const domes = vesselDomes(definition.mandrelParameters);
  const coneEnd = endDiameter !== null && endDiameter !== diameter ? endDiameter / 2 : null;
  if (!domes && coneEnd === null) return null;
  const xs: number[] = [];
  const rs: number[] = [];
  const start = domes && domeMeridian(domes.start, R, definition.towParameters.width);
  if (start) {
    // Outward from the equator is towards −x at the start: walk it from the pole back in.
    for (let i = start.z.length - 1; i > 0; i--) {
      xs.push(-(start.z[i] as number));
      rs.push(start.r[i] as number);
    }
  }
  xs.push(0, windLength);
  rs.push(R, coneEnd ?? R);
  const end = domes && domeMeridian(domes.end, R, definition.towParameters.width);
  if (end) {
    for (let i = 1; i < end.z.length; i++) {
      xs.push(windLength + (end.z[i] as number));
      rs.push(end.r[i] as number);
    }
  }
  return { x: Float32Array.from(xs), r: Float32Array.from(rs) };
}

/** The surface radius at `x` (the ends' radii beyond them). */
export function radiusAt(profile: MandrelProfile, x: number): number {
  const { x: xs, r: rs } = profile;
  const n = xs.length;
  if (n === 0) return 0;
  if (x <= (xs[0] as number)) return rs[0] as number;
  if (x >= (xs[n - 1] as number)) return rs[n - 1] as number;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) <= x) lo = mid;
    else hi = mid;
  }
  const x0 = xs[lo] as number;
  const x1 = xs[hi] as number;
  const f = x1 > x0 ? (x - x0) / (x1 - x0) : 0;
  return (rs[lo] as number) + f * ((rs[hi] as number) - (rs[lo] as number));
}
