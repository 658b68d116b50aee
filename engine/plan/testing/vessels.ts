// Vessel definitions and the readings the vessel tests take from a path or a program: Clairaut's
// constant of two stations in the development, the radius of the chain of frusta, the G0 words of
// a geodesic layer and how far circuit starts are from evenly spaced slots.
import { GeodesicLayerSchema } from '../../wind/schema.ts';
import type { Dome, GeodesicLayer, Layer, Machine, WindDefinition } from '../../wind/types.ts';
import type { Meridian } from '../meridian.ts';
import { type GeodesicKinematics, geodesicKinematics } from '../vessel.ts';

export const hemi = (opening = 40): Dome => ({
  type: 'hemispherical',
  polarOpeningDiameter: opening,
  aspect: null,
  points: null,
});

/** A geodesic layer with the schema's defaults for every field not given. */
export function geodesic(fields: Partial<GeodesicLayer> = {}): GeodesicLayer {
  return GeodesicLayerSchema.parse({ windType: 'geodesic', ...fields });
}

export const profile = (opening: number, points: [number, number][]): Dome => ({
  type: 'profile',
  polarOpeningDiameter: opening,
  aspect: null,
  points,
});

export function vessel(
  layers: Layer[],
  domes: { start: Dome; end: Dome } = { start: hemi(), end: hemi() },
  mandrel: { diameter?: number; windLength?: number; meridianSegments?: number } = {},
  width = 6,
  machine: Machine | null = null,
): WindDefinition {
  return {
    schemaVersion: '1.1',
    layers,
    mandrelParameters: {
      diameter: mandrel.diameter ?? 150,
      windLength: mandrel.windLength ?? 300,
      endDiameter: null,
      domes: { both: null, ...domes },
      meridianSegments: mandrel.meridianSegments ?? 4096,
    },
    towParameters: { width, thickness: 0.3 },
    defaultFeedRate: 6000,
    machine,
  };
}

export function kinematicsOf(definition: WindDefinition, index = 0): GeodesicKinematics {
  const layer = definition.layers[index];
  if (layer?.windType !== 'geodesic') throw new Error('not a geodesic layer');
  const k = geodesicKinematics(
    layer,
    definition.mandrelParameters,
    definition.towParameters,
    definition.machine,
  );
  if (typeof k === 'string') throw new Error(k);
  return k;
}

/** sin(x)/x with its limit. */
export const sinc = (x: number) => (x === 0 ? 1 : Math.sin(x) / x);

/**
 * Clairaut's constant of the straight line through two points of one frustum in its development
 * (a plane sector; a plane strip on a cylinder): the apex's distance to the line times sin φh,
 * written so that the cylinder is its limit.
 */
export function developedClairaut(
  z1: number,
  r1: number,
  f1: number,
  z2: number,
  r2: number,
  f2: number,
): number {
  const ds = Math.hypot(z2 - z1, r2 - r1);
  const k = Math.abs(r2 - r1) / ds;
  const dphi = Math.abs(f2 - f1);
  const u = dphi * sinc(dphi * k);
  const v = dphi * sinc((dphi * k) / 2);
  return (r1 * r2 * u) / Math.sqrt(ds * ds + r1 * r2 * v * v);
}

/** The radius of the vessel's chain of frusta at axial position z (vessel coordinates). */
export function radiusAt(k: GeodesicKinematics, z: number): number {
  const { R, L } = k.vessel;
  if (z >= 0 && z <= L) return R;
  const meridian: Meridian = z > L ? k.vessel.end : k.vessel.start;
  const d = z > L ? z - L : -z;
  const zs = meridian.z;
  let lo = 0;
  let hi = zs.length - 1;
  if (d >= (zs[hi] ?? 0)) return meridian.r[hi] ?? 0;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((zs[mid] ?? 0) <= d) lo = mid;
    else hi = mid;
  }
  const t = (d - (zs[lo] ?? 0)) / ((zs[hi] ?? 0) - (zs[lo] ?? 0));
  return (meridian.r[lo] ?? 0) + t * ((meridian.r[hi] ?? 0) - (meridian.r[lo] ?? 0));
}

export interface Word {
  x: number;
  a: number;
  b: number;
}

/**
 * The G0 lines of geodesic layer `index` (1-based) from its re-zero to its closing re-zero, and
 * the line before each `Circuit` comment (where that circuit starts).
 */
export function layerMoves(gcode: string, index: number): { moves: Word[]; circuitStarts: Word[] } {
  const lines = gcode.split('\n');
  const layer = lines.findIndex((line) => line.startsWith(`; Layer ${index} of`));
  const from = lines.findIndex((line, i) => i > layer && line === 'G92 A0');
  const moves: Word[] = [];
  const circuitStarts: Word[] = [];
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('G92')) break;
    if (line.startsWith('; \tCircuit:')) {
      const previous = moves[moves.length - 1];
      if (previous) circuitStarts.push(previous);
    }
    const m = /^G0 X(\S+) A(\S+) B(\S+)$/.exec(line);
    if (m) moves.push({ x: Number(m[1]), a: Number(m[2]), b: Number(m[3]) });
  }
  return { moves, circuitStarts };
}

/**
 * How far start angles (degrees) are from N distinct slots `gap` apart, counted from the first
 * and compared round the circle (a start a hair below 360° is the slot at 0°); Infinity when two
 * starts share a slot.
 */
export function worstSlotError(slots: number[], gap: number): number {
  const first = slots[0] ?? 0;
  const used = new Set<number>();
  let worst = 0;
  for (const slot of slots) {
    const steps = (slot - first) / gap;
    const nearest = Math.round(steps);
    used.add(((nearest % slots.length) + slots.length) % slots.length);
    worst = Math.max(worst, Math.abs(steps - nearest) * gap);
  }
  return used.size === slots.length ? worst : Number.POSITIVE_INFINITY;
}
