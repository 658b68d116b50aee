// The unwrapped view's geometry: the mandrel's surface laid flat, carriage position (mm) across and
// mandrel angle 0–360° down, from the engine's preview arrays. A segment that crosses 0°/360° is
// drawn as two pieces, one leaving the bottom edge and one entering at the top (or the other way).

/** Degrees below 360 that are the seam itself (float32 positions carry about 6e-4° of noise there). */
const SEAM_SNAP = 2e-3;

/** Per vertex, its mandrel angle in degrees, 0 ≤ a < 360 (from y = r·cos θ, z = r·sin θ). */
export function vertexAngles(positions: Float32Array, vertexCount: number): Float32Array {
  const angles = new Float32Array(vertexCount);
  for (let k = 0; k < vertexCount; k++) {
    let a = (Math.atan2(positions[3 * k + 2] as number, positions[3 * k + 1] as number) * 180) / Math.PI;
    if (a < 0) a += 360;
    // A vertex exactly on the seam, read back from float32 positions, can land a hair below 360°:
    // it is 0°, or a move that only touches the seam would be split twice.
    if (a >= 360 - SEAM_SNAP) a = 0;
    angles[k] = a;
  }
  return angles;
}

/**
 * Whether the step from angle a0 to a1 crosses 0°/360°, and which way: +1 forwards past 360°,
 * −1 backwards past 0°, 0 not at all. The preview cuts every turn into steps of a few degrees, so
 * a step of more than half a turn in [0, 360) is the short way round across the seam.
 */
export function wrapDirection(a0: number, a1: number): -1 | 0 | 1 {
  const d = a1 - a0;
  if (d < -180) return 1;
  if (d > 180) return -1;
  return 0;
}

export interface Piece {
  x0: number;
  a0: number;
  x1: number;
  a1: number;
}

/**
 * The pieces the segment (x0, a0) → (x1, a1) is drawn as: itself, or split at the seam where it
 * crosses it (the carriage position there by linear interpolation over the short way round).
 */
export function segmentPieces(x0: number, a0: number, x1: number, a1: number): Piece[] {
  const wrap = wrapDirection(a0, a1);
  if (wrap === 0) return [{ x0, a0, x1, a1 }];
  // Forwards: a0 → 360 then 0 → a1; backwards: a0 → 0 then 360 → a1.
  const first = wrap === 1 ? 360 - a0 : a0;
  const second = wrap === 1 ? a1 : 360 - a1;
  const total = first + second;
  const f = total > 0 ? first / total : 0.5;
  const xs = x0 + (x1 - x0) * f;
  return wrap === 1
    ? [
        { x0, a0, x1: xs, a1: 360 },
        { x0: xs, a0: 0, x1, a1 },
      ]
    : [
        { x0, a0, x1: xs, a1: 0 },
        { x0: xs, a0: 360, x1, a1 },
      ];
}

export interface UnwrappedCounts {
  /** Segments of the path (neighbouring vertices): the engine's preview polyline. */
  segments: number;
  /** Segments that cross 0°/360° and are drawn as two pieces. */
  wraps: number;
  /** Pieces drawn: segments + wraps. */
  pieces: number;
}

export function unwrappedCounts(angles: Float32Array): UnwrappedCounts {
  let wraps = 0;
  for (let k = 1; k < angles.length; k++)
    if (wrapDirection(angles[k - 1] as number, angles[k] as number) !== 0) wraps++;
  const segments = Math.max(angles.length - 1, 0);
  return { segments, wraps, pieces: segments + wraps };
}
