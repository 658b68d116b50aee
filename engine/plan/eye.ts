// The delivery eye (notes §2.8, docs/winding-vessels.md): a 3-axis winder's eye rides on a line
// parallel to the mandrel axis at a fixed radius d. The free fibre leaves the contact point P along
// the path's tangent t and reaches the eye at E = P + μ·t with |E_xy| = d; the carriage stands at
// E's z, the mandrel turns so that E's angle in the mandrel frame is the commanded angle, and the
// head leans by the fibre's angle projected on the plane across the eye's radial line. Everything
// here is in the station's local frame (e_r, e_φ, e_z), which is why P is just (r, 0, z).
import type { Meridian } from './meridian.ts';

/** Unit tangent of the fibre (local e_r, e_φ, e_z components). */
export type Tangent = readonly [number, number, number];

/**
 * The fibre's unit tangent at a station of radius r on the geodesic r·sin α = c, running along the
 * unit meridian direction (mr, mz) it travels on (0, 0 at a turnaround: then purely round).
 */
export function fibreTangent(r: number, c: number, mr: number, mz: number): Tangent {
  const sin = Math.min(1, c / r);
  const cos = r > c ? Math.sqrt((r - c) * (r + c)) / r : 0;
  const tr = cos * mr;
  const tz = cos * mz;
  const length = Math.hypot(tr, sin, tz);
  return [tr / length, sin / length, tz / length];
}

export interface EyePlacement {
  /** Carriage position: the eye's z. */
  x: number;
  /** Angle of the eye ahead of the contact point round the axis, radians (0 when d = r). */
  lead: number;
  /** Head angle from the axis of the fibre seen across the eye's radial line, radians. */
  gamma: number;
  /** Free fibre length μ from the contact point to the eye. */
  free: number;
}

/**
 * Where carriage, mandrel and head put an eye of radius d so that the fibre from it touches the
 * surface at (z, r) with tangent t. d ≥ r, and t has a round component (c > 0), so μ is real.
 */
export function eyePlacement(z: number, r: number, t: Tangent, d: number): EyePlacement {
  const [tr, tp, tz] = t;
  const along = r * tr;
  const round = tr * tr + tp * tp;
  const spare = (d - r) * (d + r);
  const root = Math.sqrt(along * along + round * spare);
  // The root of round·μ² + 2·along·μ − spare = 0 that is ≥ 0, without cancelling digits.
  let free = 0;
  if (spare > 0) free = along >= 0 ? spare / (along + root) : (root - along) / round;
  const ex = r + free * tr;
  const ey = free * tp;
  const across = (ex * tp - ey * tr) / d;
  return { x: z + free * tz, lead: Math.atan2(ey, ex), gamma: Math.atan2(across, Math.abs(tz)), free };
}

/** Head angle B (degrees) from the projected fibre angle: −sign(t_z)·(90° − γ), 0 when round. */
export function headAngle(gammaDegrees: number, tz: number): number {
  if (tz === 0) return 0;
  return -Math.sign(tz) * (90 - gammaDegrees);
}

/** The mandrel as the free fibre sees it: pieces of r(z) over the whole axis, in z order. */
export interface Solid {
  /** Axial positions of the piece ends (vessel coordinates), ascending; ±Infinity at the ends. */
  z: Float64Array;
  /** Radii at those positions. */
  r: Float64Array;
  /** What each piece is, for messages: the name of piece i (between z[i] and z[i+1]). */
  names: string[];
}

/**
 * The vessel as one solid of revolution: the start boss (the start dome's last radius, out to
 * −∞), the start dome, the cylinder, the end dome and the end boss. A boss stands for the fitting
 * and the shaft through the polar opening: a cylinder of the opening's radius.
 */
export function vesselSolid(R: number, L: number, start: Meridian, end: Meridian): Solid {
  const z: number[] = [];
  const r: number[] = [];
  const names: string[] = [];
  const startLast = start.r.length - 1;
  z.push(Number.NEGATIVE_INFINITY);
  r.push(start.r[startLast] ?? 0);
  names.push('the start boss');
  for (let i = startLast; i >= 0; i--) {
    z.push(-(start.z[i] ?? 0));
    r.push(start.r[i] ?? 0);
    names.push(i > 0 ? 'the start dome' : 'the cylinder');
  }
  z.push(L);
  r.push(R);
  names.push('the end dome');
  for (let i = 1; i < end.r.length; i++) {
    z.push(L + (end.z[i] ?? 0));
    r.push(end.r[i] ?? 0);
    names.push(i + 1 < end.r.length ? 'the end dome' : 'the end boss');
  }
  z.push(Number.POSITIVE_INFINITY);
  r.push(end.r[end.r.length - 1] ?? 0);
  return { z: Float64Array.from(z), r: Float64Array.from(r), names };
}

/** First piece whose far end lies beyond z (binary search). */
function pieceAt(solid: Solid, z: number): number {
  let lo = 0;
  let hi = solid.z.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((solid.z[mid] ?? 0) <= z) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Where the free fibre from the contact point (z, r) along t to the eye, μ long, first passes
 * inside the solid deeper than `tolerance` (mm): the name of the piece it enters, or null when it
 * clears everything. Exact per piece: inside a frustum ρ(μ)² − m(μ)² is a quadratic in μ, so its
 * least value over the part of the fibre above that piece is found in closed form.
 */
export function freeFibreCollision(
  solid: Solid,
  z: number,
  r: number,
  t: Tangent,
  free: number,
  tolerance: number,
): string | null {
  const [tr, tp, tz] = t;
  const zEye = z + free * tz;
  const first = pieceAt(solid, Math.min(z, zEye));
  const last = pieceAt(solid, Math.max(z, zEye));
  for (let i = first; i <= last; i++) {
    const za = solid.z[i] ?? 0;
    const zb = solid.z[i + 1] ?? 0;
    const ra = solid.r[i] ?? 0;
    const rb = solid.r[i + 1] ?? 0;
    // A flat step of a profile is the side of its neighbours: nothing of its own to enter.
    if (!(zb > za)) continue;
    // The fibre's stretch above this piece, as an interval of μ within (0, free].
    let lo = 0;
    let hi = free;
    if (tz !== 0) {
      const m1 = (za - z) / tz;
      const m2 = (zb - z) / tz;
      lo = Math.max(lo, Math.min(m1, m2));
      hi = Math.min(hi, Math.max(m1, m2));
    } else if (!(z >= za && z <= zb)) continue;
    if (!(hi > lo)) continue;
    // The piece's radius along the fibre: m(μ) = m0 + m1·μ (a boss is constant).
    const slope = Number.isFinite(za) && Number.isFinite(zb) && zb > za ? (rb - ra) / (zb - za) : 0;
    const base = Number.isFinite(za) ? ra : rb;
    const from = Number.isFinite(za) ? za : zb;
    const m0 = base + slope * (z - from);
    const m1 = slope * tz;
    // ρ² − m² = A·μ² + 2B·μ + C
    const A = tr * tr + tp * tp - m1 * m1;
    const B = r * tr - m0 * m1;
    const C = r * r - m0 * m0;
    const at = (mu: number) => (A * mu + 2 * B) * mu + C;
    let least = Math.min(at(lo), at(hi));
    if (A > 0) {
      const vertex = -B / A;
      if (vertex > lo && vertex < hi) least = Math.min(least, at(vertex));
    }
    // ρ² − m² < 0 means inside; depth δ below the surface gives about −2·m·δ.
    const depthScale = 2 * Math.max(m0, m0 + m1 * hi, 1e-12);
    if (least < -tolerance * depthScale) return solid.names[i] ?? 'the mandrel';
  }
  return null;
}
