// The tow bands as geometry, built in the preview worker: where each layer lies (the mandrel plus
// the tow thickness of the layers under it), how wide the band is, the mandrel's surface radius
// along the axis, and the ribbon itself: two vertices per path vertex, either side of it across
// the path on the surface, joined by two triangles per segment. The shader only narrows what is
// not yet wound and shades; layer colours and visibility stay in small tables.
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

export interface Ribbon {
  /** Per ribbon vertex (two per path vertex, left then right): the path's point on the surface, then half the band across it. */
  centreAcross: Float32Array;
  /** Per ribbon vertex, its path vertex's command and layer. */
  command: Uint32Array;
  layer: Uint16Array;
  /** Two triangles per segment. */
  index: Uint32Array;
}

/**
 * The band along the path. Each path vertex is lifted onto the surface at its layer's radius
 * (later bands of a layer a little higher, so where bands cross the later one lies on top) and
 * given the direction across the path there: along the surface, square to the path (the
 * neighbours' chord), half the tow's width long.
 */
export function buildRibbon(
  geometry: Pick<ViewGeometry, 'positions' | 'commandIndex' | 'layerOf' | 'layers' | 'vertexCount'>,
  layout: BandLayout,
  profile: SampledProfile,
): Ribbon {
  const n = geometry.vertexCount;
  const p = geometry.positions;
  const centreAcross = new Float32Array(12 * n);
  const command = new Uint32Array(2 * n);
  const layer = new Uint16Array(2 * n);
  const half = layout.width / 2;
  for (let k = 0; k < n; k++) {
    const l = geometry.layerOf[k] ?? 0;
    const info = geometry.layers[l];
    const progress =
      info && info.vertexCount > 0 ? Math.min(Math.max((k - info.firstVertex) / info.vertexCount, 0), 1) : 0;
    const lift = (layout.lift[l] ?? 0) + layout.thickness * (0.15 + 0.8 * progress);
    const x = p[3 * k] as number;
    const y = p[3 * k + 1] as number;
    const z = p[3 * k + 2] as number;
    const r = Math.hypot(y, z);
    const ny = r > 0 ? y / r : 1;
    const nz = r > 0 ? z / r : 0;
    const surface = sampledRadius(profile, x) + lift;
    // The chord between the neighbours: the path's direction here.
    const a = Math.max(k - 1, 0);
    const b = Math.min(k + 1, n - 1);
    const tx = (p[3 * b] as number) - (p[3 * a] as number);
    const ty = (p[3 * b + 1] as number) - (p[3 * a + 1] as number);
    const tz = (p[3 * b + 2] as number) - (p[3 * a + 2] as number);
    // across = radial × direction, radial = (0, ny, nz)
    let cx = ny * tz - nz * ty;
    let cy = nz * tx;
    let cz = -ny * tx;
    const length = Math.hypot(cx, cy, cz);
    // No direction (a dwell, or a turnaround straight back): lie across the axis.
    if (length > 1e-9) {
      cx /= length;
      cy /= length;
      cz /= length;
    } else {
      cx = 1;
      cy = 0;
      cz = 0;
    }
    for (let side = 0; side < 2; side++) {
      const v = 2 * k + side;
      centreAcross[6 * v] = x;
      centreAcross[6 * v + 1] = ny * surface;
      centreAcross[6 * v + 2] = nz * surface;
      centreAcross[6 * v + 3] = cx * half;
      centreAcross[6 * v + 4] = cy * half;
      centreAcross[6 * v + 5] = cz * half;
      command[v] = geometry.commandIndex[k] ?? 0;
      layer[v] = l;
    }
  }
  const segments = Math.max(n - 1, 0);
  const index = new Uint32Array(6 * segments);
  for (let k = 1; k < n; k++) writeSegment(index, 6 * (k - 1), k);
  return { centreAcross, command, layer, index };
}

/** Writes at `at` the two triangles of the band between path vertices k − 1 and k. */
export function writeSegment(index: Uint32Array, at: number, k: number): void {
  const a = 2 * (k - 1);
  const b = 2 * k;
  // The segment's end vertex comes last in both triangles: it decides done or pending (flat shading).
  index[at] = a;
  index[at + 1] = a + 1;
  index[at + 2] = b;
  index[at + 3] = a + 1;
  index[at + 4] = b + 1;
  index[at + 5] = b;
}
