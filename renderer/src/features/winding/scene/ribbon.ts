// What the tow bands are drawn from, as plain numbers: where each layer lies (the mandrel plus the
// tow thickness of the layers under it), how wide the band is, and the mandrel's surface radius
// sampled evenly along the axis. The 3D view's shader reads these from small tables; the band
// itself is expanded from each path segment on the GPU (ribbon-shader.ts), so a million-segment
// path needs no vertex memory beyond the path it already has.
import { type MandrelProfile, radiusAt } from '../preview/mandrel-profile.ts';
import type { ViewGeometry } from '../preview/protocol.ts';

/** Texels per row of the layer tables: more layers than this wrap to further rows. */
export const TABLE_WIDTH = 1024;
/** Samples of the mandrel's radius along the axis the shader interpolates between. */
export const PROFILE_SAMPLES = 2048;

/** Layers that lay no tow (a skip turns the mandrel only): no band, no thickness. */
export function laysTow(windType: string): boolean {
  return windType !== 'skip';
}

export interface BandLayout {
  /** Full band width, mm. */
  width: number;
  /** One layer's thickness, mm. */
  thickness: number;
  /** Per layer: how far its inner face lies above the mandrel, mm (the thickness of the layers under it). */
  lift: Float32Array;
  /** Per layer: 1 when it lays tow, 0 when it does not (drawn with no width). */
  band: Float32Array;
}

/**
 * The bands of a program. A definition gives the tow; G-code from elsewhere does not, so its band
 * is a twentieth of the mandrel's radius (visible, and narrower than any real pattern's spacing).
 */
export function bandLayout(geometry: Pick<ViewGeometry, 'layers' | 'tow' | 'mandrel'>): BandLayout {
  const width = geometry.tow?.width ?? Math.max(geometry.mandrel.radius / 20, 0.5);
  const thickness = geometry.tow?.thickness ?? width / 10;
  const count = Math.max(1, geometry.layers.length);
  const lift = new Float32Array(count);
  const band = new Float32Array(count).fill(1);
  let under = 0;
  geometry.layers.forEach((layer, k) => {
    lift[k] = under * thickness;
    const lays = laysTow(layer.windType);
    band[k] = lays ? 1 : 0;
    if (lays) under++;
  });
  return { width, thickness, lift, band };
}

/** Where texel `k` of a layer table lies. */
export function tableTexel(k: number): [number, number] {
  return [k % TABLE_WIDTH, Math.floor(k / TABLE_WIDTH)];
}

/** Rows a table of `count` texels needs. */
export function tableRows(count: number): number {
  return Math.max(1, Math.ceil(count / TABLE_WIDTH));
}

export interface SampledProfile {
  /** Radius samples, evenly spaced from `x0` by `dx`. */
  radius: Float32Array;
  x0: number;
  dx: number;
}

/** The mandrel's surface radius sampled evenly along the axis; a cylinder is two equal samples. */
export function sampleProfile(mandrel: ViewGeometry['mandrel']): SampledProfile {
  const profile: MandrelProfile | null = mandrel.profile;
  if (!profile || profile.x.length < 2) {
    return {
      radius: Float32Array.of(mandrel.radius, mandrel.radius),
      x0: mandrel.startX,
      dx: Math.max(mandrel.length, 1),
    };
  }
  const x0 = profile.x[0] as number;
  const x1 = profile.x[profile.x.length - 1] as number;
  const dx = (x1 - x0) / (PROFILE_SAMPLES - 1) || 1;
  const radius = new Float32Array(PROFILE_SAMPLES);
  for (let i = 0; i < PROFILE_SAMPLES; i++) radius[i] = radiusAt(profile, x0 + i * dx);
  return { radius, x0, dx };
}

/** The surface radius at `x` from the samples, interpolated as the shader does (the marker sits there). */
export function sampledRadius(sampled: SampledProfile, x: number): number {
  const n = sampled.radius.length;
  const f = Math.min(Math.max((x - sampled.x0) / sampled.dx, 0), n - 1);
  const i = Math.floor(f);
  const j = Math.min(i + 1, n - 1);
  const a = sampled.radius[i] as number;
  return a + (f - i) * ((sampled.radius[j] as number) - a);
}
