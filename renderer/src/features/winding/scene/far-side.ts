// The tow on the far side of the mandrel, found on the CPU before a frame: the band shader already
// gives a far vertex no width, but in software GL each of those vertices still costs the frame
// its shading and its empty triangles their set-up (a third of a frame for the largest reference
// part). Only the segments with an end facing the camera go into the index buffer drawn.
import { type SampledProfile, writeSegment } from './ribbon.ts';

/**
 * How far past edge-on a point's surface must face away to count as the far side: the same margin
 * the band shader uses (a cosine), so every segment the shader would draw with width is kept.
 */
export const FAR_MARGIN = 0.05;
const FAR_MARGIN_SQUARED = FAR_MARGIN * FAR_MARGIN;

/**
 * Per path vertex, the mandrel surface's outward unit normal at its ribbon centre: radial, tilted by
 * the sampled profile's slope there (the shader's surfaceSlope, on the same two samples).
 * `centres` is the ribbon's interleaved array (six floats per ribbon vertex, two per path vertex).
 */
export function surfaceNormals(
  centres: Float32Array,
  vertexCount: number,
  profile: SampledProfile,
): Float32Array {
  const normals = new Float32Array(3 * vertexCount);
  const samples = profile.radius.length;
  for (let k = 0; k < vertexCount; k++) {
    const x = centres[12 * k] as number;
    const y = centres[12 * k + 1] as number;
    const z = centres[12 * k + 2] as number;
    const f = Math.min(Math.max((x - profile.x0) / profile.dx, 0), samples - 1);
    const i = Math.min(Math.floor(f), samples - 2);
    const slope = ((profile.radius[i + 1] as number) - (profile.radius[i] as number)) / profile.dx;
    const r = Math.sqrt(y * y + z * z);
    const ny = r > 0 ? y / r : 1;
    const nz = r > 0 ? z / r : 0;
    const length = Math.sqrt(slope * slope + 1);
    normals[3 * k] = -slope / length;
    normals[3 * k + 1] = ny / length;
    normals[3 * k + 2] = nz / length;
  }
  return normals;
}

/**
 * Writes into `out` the ribbon's triangles (six indices a segment, as `buildRibbon` orders them)
 * for each segment with an end that is not on the far side seen from `camera`, and returns how
 * many indices it wrote.
 */
export function frontIndices(
  centres: Float32Array,
  normals: Float32Array,
  vertexCount: number,
  camera: { x: number; y: number; z: number },
  out: Uint32Array,
): number {
  let written = 0;
  let previousFar = true;
  for (let k = 0; k < vertexCount; k++) {
    const dx = (centres[12 * k] as number) - camera.x;
    const dy = (centres[12 * k + 1] as number) - camera.y;
    const dz = (centres[12 * k + 2] as number) - camera.z;
    const facing =
      (normals[3 * k] as number) * dx +
      (normals[3 * k + 1] as number) * dy +
      (normals[3 * k + 2] as number) * dz;
    // Squared, so no square root: this runs for every vertex of every frame the camera moves for.
    const far = facing > 0 && facing * facing > FAR_MARGIN_SQUARED * (dx * dx + dy * dy + dz * dz);
    if (k > 0 && !(far && previousFar)) {
      writeSegment(out, written, k);
      written += 6;
    }
    previousFar = far;
  }
  return written;
}
