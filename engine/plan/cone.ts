// Reducing cones (spec/winding.md §2.6, §4.5a): the geodesic of the frustum, anchored at the large
// end, as the reference planner 0.10 lays it. `diameter` is the large end at z = 0 and `endDiameter`
// the diameter at z = windLength. In the unrolled sector a geodesic is a straight line, which gives
// the mandrel angle in closed form: θ(z) = (acos(c/r0) − acos(c/r(z))) / sin φh with Clairaut's
// constant c = r0·sin α and the half-angle φh. Every expression keeps the reference's order and
// form: the output is compared with its G-code word for word.
import { DEG, gFormat, pyrepr, RAD, rhe } from '../numeric.ts';
import type { HelicalLayer, MandrelParameters } from '../wind/types.ts';

/** A reducing frustum and the geodesic laid on it. */
export interface ConeShape {
  /** windLength: the axial length of the frustum. */
  L: number;
  /** Large-end radius (z = 0). */
  r0: number;
  /** Small-end radius (z = L). */
  r1: number;
  /** Clairaut's constant r·sin α, fixed by the wind angle at the large end. */
  c: number;
  /** sin of the half-angle atan((r0 − r1) / L). */
  sinHalfAngle: number;
  /** acos(c / r0): where θ is measured from. */
  acosAnchor: number;
}

export interface ConeKinematics extends ConeShape {
  /** Mandrel turn of one pass, large end to small end, degrees. */
  thetaFull: number;
  /** Stations per pass, one per millimetre of carriage travel. */
  stations: number;
  /** Added after each pass so that the net turn per pass is the lock, as on a cylinder. */
  dwell: number;
}

/** True when the mandrel is a cone: an end diameter that differs from `diameter`. */
export function isCone(mandrel: MandrelParameters): boolean {
  return mandrel.endDiameter !== null && mandrel.endDiameter !== mandrel.diameter;
}

/** Stations of a pass over `windLength` (the reference's `max(1, round(|Δz|))`). */
export function coneStations(windLength: number): number {
  return Math.max(1, rhe(windLength));
}

/**
 * Why a helical layer cannot be wound on this cone (the reference's texts), or null. Runs after
 * the wind-angle bounds check; `endDiameter` is known to be a number.
 */
export function coneLayerProblem(layer: HelicalLayer, mandrel: MandrelParameters): string | null {
  const r0 = mandrel.diameter / 2;
  const r1 = (mandrel.endDiameter ?? mandrel.diameter) / 2;
  if (!(r0 > r1)) {
    return `cone requires a reducing frustum with r0 > r1 (got r0=${pyrepr(r0)}, r1=${pyrepr(r1)}); the wind angle anchors at the large end r0, so mount the large end at z=0`;
  }
  const c = r0 * Math.sin(layer.windAngle * DEG);
  if (c > r1) {
    return `wind angle ${pyrepr(layer.windAngle)}° is too steep for the cone: the geodesic (Clairaut C=${gFormat(c, 4)}mm) cannot reach the small-end radius ${gFormat(r1, 4)}mm. Reduce the wind angle to <= ${gFormat(Math.asin(r1 / r0) * RAD, 4)}°`;
  }
  return null;
}

/** The cone's per-layer constants; the layer passed `coneLayerProblem`. */
export function coneKinematics(layer: HelicalLayer, mandrel: MandrelParameters): ConeKinematics {
  const L = mandrel.windLength;
  const r0 = mandrel.diameter / 2;
  const r1 = (mandrel.endDiameter ?? mandrel.diameter) / 2;
  const c = r0 * Math.sin(layer.windAngle * DEG);
  const shape: ConeShape = {
    L,
    r0,
    r1,
    c,
    sinHalfAngle: Math.sin(Math.atan((r0 - r1) / L)),
    acosAnchor: Math.acos(c / r0),
  };
  const thetaFull = coneTheta(shape, L);
  return {
    ...shape,
    thetaFull,
    stations: coneStations(L),
    dwell: layer.lockDegrees - layer.leadOutDegrees - (thetaFull % 360),
  };
}

/** c / r(z), capped at 1 (the geodesic is tangent to the parallel where it reaches 1). */
export function clairautRatio(cone: ConeShape, z: number): number {
  return Math.min(1, cone.c / (cone.r0 + (cone.r1 - cone.r0) * (z / cone.L)));
}

/** Mandrel angle θ of the geodesic, degrees from the large end, where c / r is `ratio`. */
export function thetaAtRatio(cone: ConeShape, ratio: number): number {
  return ((cone.acosAnchor - Math.acos(ratio)) / cone.sinHalfAngle) * RAD;
}

/** Fibre angle α from the meridian, degrees, where c / r is `ratio`. */
export function fibreAngleAtRatio(ratio: number): number {
  return Math.asin(ratio) * RAD;
}

/** Mandrel angle θ(z) of the geodesic, degrees from the large end. */
export function coneTheta(cone: ConeShape, z: number): number {
  return thetaAtRatio(cone, clairautRatio(cone, z));
}

/** Fibre angle α(z) from the meridian, degrees. */
export function coneFibreAngle(cone: ConeShape, z: number): number {
  return fibreAngleAtRatio(clairautRatio(cone, z));
}
