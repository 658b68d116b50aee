// What the engineer reads about a vessel's laminate (docs/winding-vessels.md, "Analysis"): for
// each layer the fibre angle and the thickness along the part, the thickness of the laminate so far,
// and how the layer's circuits cover the equator. The series share one set of positions spread
// evenly along the mandrel's meridian (pole, dome, cylinder, dome, pole), so the steep domes get as
// many points as the cylinder; a few hundred of them are enough to draw and small to send.
import { DEG, RAD } from '../numeric.ts';
import type { Layer, MandrelParameters, TowParameters, WindDefinition, WindType } from '../wind/types.ts';
import type { LayerKinematics } from './checks.ts';
import type { Vessel } from './circuit.ts';
import { bandThickness, type GeodesicBand, helicalCylinderThickness } from './thickness.ts';
import type { GeodesicKinematics } from './vessel.ts';

/** Points the series are sampled at. */
export const ANALYSIS_POINTS = 401;

/** How the circuits of a helical or geodesic layer cover the equator. */
export interface Coverage {
  /** N: circuits, each an evenly spaced slot round the equator. */
  slots: number;
  /** Slots between consecutive circuit starts (geodesic), or the pattern's skip (helical). */
  advance: number;
  /** How much more than once the bands cover the equator, percent. */
  overlap_percent: number;
  /** Mandrel turn added per circuit at each pole (geodesic) or after each pass (helical), degrees. */
  dwell_deg: number;
}

export interface LayerAnalysis {
  index: number;
  wind_type: WindType;
  /** Fibre angle from the axis at each position, degrees; null where the layer lays nothing. */
  angle_deg: (number | null)[];
  /** Thickness this layer lays at each position, mm. */
  thickness_mm: number[];
  /** Thickness of this layer and every one before it, mm (the mandrel is not grown between layers). */
  cumulative_thickness_mm: number[];
  coverage: Coverage | null;
}

export interface PlanAnalysis {
  /** Axial positions, mm: z = 0 where the cylinder starts, the domes outside 0…windLength. */
  z_mm: number[];
  /** The mandrel's radius at each position, mm. */
  radius_mm: number[];
  layers: LayerAnalysis[];
}

/** A layer's angle and thickness at a point of the mandrel. */
export interface LayerProfile {
  angle(z: number, r: number): number | null;
  thickness(z: number, r: number): number;
  coverage: Coverage | null;
}

/** Vertices of the whole meridian in z order: start pole, start dome, cylinder, end dome, end pole. */
function meridianOf(vessel: Vessel): { z: number[]; r: number[] } {
  const z: number[] = [];
  const r: number[] = [];
  const { start, end, L, R } = vessel;
  for (let i = start.z.length - 1; i > 0; i--) {
    z.push(-(start.z[i] ?? 0));
    r.push(start.r[i] ?? 0);
  }
  z.push(0, L);
  r.push(R, R);
  for (let i = 1; i < end.z.length; i++) {
    z.push(L + (end.z[i] ?? 0));
    r.push(end.r[i] ?? 0);
  }
  return { z, r };
}

/** `count` positions evenly spaced in arc length along the meridian. */
export function analysisPositions(vessel: Vessel, count = ANALYSIS_POINTS): { z: number[]; r: number[] } {
  const chain = meridianOf(vessel);
  const s = [0];
  for (let i = 1; i < chain.z.length; i++) {
    const dz = (chain.z[i] ?? 0) - (chain.z[i - 1] ?? 0);
    const dr = (chain.r[i] ?? 0) - (chain.r[i - 1] ?? 0);
    s.push((s[i - 1] ?? 0) + Math.hypot(dz, dr));
  }
  const total = s[s.length - 1] ?? 0;
  const z: number[] = [];
  const r: number[] = [];
  let piece = 0;
  for (let k = 0; k < count; k++) {
    const at = (total * k) / (count - 1);
    while (piece < s.length - 2 && (s[piece + 1] ?? 0) < at) piece++;
    const length = (s[piece + 1] ?? 0) - (s[piece] ?? 0);
    // The ends are the chain's own end vertices, not sums of lengths that round either way: the
    // band's inner edge sits on the opening, where thickness grows like √(r − c_in).
    const t = k === count - 1 ? 1 : length > 0 ? Math.min(1, (at - (s[piece] ?? 0)) / length) : 0;
    z.push((chain.z[piece] ?? 0) + t * ((chain.z[piece + 1] ?? 0) - (chain.z[piece] ?? 0)));
    r.push((chain.r[piece] ?? 0) + t * ((chain.r[piece + 1] ?? 0) - (chain.r[piece] ?? 0)));
  }
  return { z, r };
}

const onCylinder = (z: number, L: number) => z >= 0 && z <= L;

/**
 * The profile of one layer (notes §2.7): a hoop lays its angle atan(πD/w) and 2·t_tow (t_tow when
 * terminal) on the cylinder; a helical layer 2·t_tow·N·w/(πD·cos α) there; a geodesic layer
 * α = asin(c/r) and the band model over cylinder and domes, its band spreading Clairaut's constant
 * over c ± b/2 and crossing each parallel twice per circuit.
 */
export function layerProfile(
  layer: Layer,
  kinematics: LayerKinematics,
  mandrel: MandrelParameters,
  tow: TowParameters,
): LayerProfile {
  const L = mandrel.windLength;
  const D = mandrel.diameter;
  const none: LayerProfile = { angle: () => null, thickness: () => 0, coverage: null };
  switch (layer.windType) {
    case 'skip':
      return none;
    case 'hoop': {
      const angle = Math.atan((Math.PI * D) / tow.width) * RAD;
      const laid = layer.terminal ? tow.thickness : 2 * tow.thickness;
      return {
        angle: (z) => (onCylinder(z, L) ? angle : null),
        thickness: (z) => (onCylinder(z, L) ? laid : 0),
        coverage: null,
      };
    }
    case 'helical': {
      if (kinematics === null || !('numCircuits' in kinematics)) return none;
      const N = kinematics.numCircuits;
      const laid = helicalCylinderThickness(tow.thickness, N, tow.width, D, layer.windAngle);
      return {
        angle: (z) => (onCylinder(z, L) ? layer.windAngle : null),
        thickness: (z) => (onCylinder(z, L) ? laid : 0),
        coverage: {
          slots: N,
          advance: layer.skipIndex,
          overlap_percent: ((N * tow.width) / (Math.PI * D * Math.cos(layer.windAngle * DEG)) - 1) * 100,
          dwell_deg: kinematics.dwell,
        },
      };
    }
    case 'geodesic': {
      if (kinematics === null || !('path' in kinematics)) return none;
      return geodesicProfile(kinematics, tow);
    }
  }
}

/** Keeps only numbers of the kinematics: a profile outlives its layer's path. */
function geodesicProfile(k: GeodesicKinematics, tow: TowParameters): LayerProfile {
  const { c, circuits, advance, poleDwell } = k;
  const R = k.vessel.R;
  const b = tow.width;
  const band: GeodesicBand = {
    crossings: 2 * circuits,
    towThickness: tow.thickness,
    bandWidth: b,
    cIn: c - b / 2,
    cOut: c + b / 2,
  };
  return {
    angle: (_z, r) => (r >= c ? Math.asin(c / r) * RAD : null),
    thickness: (_z, r) => bandThickness(r, band),
    coverage: {
      slots: circuits,
      advance,
      overlap_percent: ((circuits * b) / (2 * Math.PI * Math.sqrt((R - c) * (R + c))) - 1) * 100,
      dwell_deg: poleDwell * RAD,
    },
  };
}

/**
 * The analysis of a planned vessel: each layer's profile (`profiles[i]` for layer i) sampled at
 * positions along the meridian, and the laminate summed layer by layer.
 */
export function analysePlan(
  definition: WindDefinition,
  vessel: Vessel,
  profiles: readonly LayerProfile[],
): PlanAnalysis {
  const { z, r } = analysisPositions(vessel);
  const total = new Array<number>(z.length).fill(0);
  const layers: LayerAnalysis[] = [];
  definition.layers.forEach((layer, i) => {
    const profile = profiles[i];
    if (profile === undefined) return;
    const thickness = z.map((zi, j) => profile.thickness(zi, r[j] ?? 0));
    thickness.forEach((t, j) => {
      total[j] = (total[j] ?? 0) + t;
    });
    layers.push({
      index: i + 1,
      wind_type: layer.windType,
      angle_deg: z.map((zi, j) => profile.angle(zi, r[j] ?? 0)),
      thickness_mm: thickness,
      cumulative_thickness_mm: total.slice(),
      coverage: profile.coverage,
    });
  });
  return { z_mm: z, radius_mm: r, layers };
}
