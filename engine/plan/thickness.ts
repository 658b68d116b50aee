// Laminate thickness laid by a helical layer. On a cylinder every circuit crosses each parallel
// twice, so t = 2·t_tow·N·w / (π·D·cos α). On a dome fibre continuity alone gives
// t ∝ 1/√(r² − c²), infinite at the turnaround; the band model instead treats the band as a
// family of geodesics whose Clairaut constants spread evenly over [c_in, c_out] (about one band
// width at a near-radial turnaround) and ring-averages them:
//   t(r) = (n·t_tow / 2π)·(b / Δc)·[asin(min(r, c_out)/r) − asin(c_in/r)],  r ≥ c_in,
// with n the band crossings of a parallel (2 per circuit per dome). It is finite everywhere and,
// because it is the average of real fibres, its integral over the surface is the volume laid.

import { DEG } from '../numeric.ts';

/** Thickness of a helical layer on a cylinder (mm): 2·t_tow·N·w / (π·D·cos α). */
export function helicalCylinderThickness(
  towThickness: number,
  circuits: number,
  towWidth: number,
  diameter: number,
  windAngle: number,
): number {
  return (2 * towThickness * circuits * towWidth) / (Math.PI * diameter * Math.cos(windAngle * DEG));
}

/** A band of geodesics: Clairaut constants spread evenly over [cIn, cOut]. */
export interface GeodesicBand {
  /** Band crossings of each parallel the band reaches (2 per circuit per dome). */
  crossings: number;
  towThickness: number;
  bandWidth: number;
  cIn: number;
  cOut: number;
}

/** Thickness (mm) of the band model at radius r: 0 inside c_in, finite at c_in and beyond. */
export function bandThickness(r: number, band: GeodesicBand): number {
  if (!(r > band.cIn)) return 0;
  const spread = band.cOut - band.cIn;
  const reached = Math.asin(Math.min(r, band.cOut) / r) - Math.asin(band.cIn / r);
  return ((band.crossings * band.towThickness) / (2 * Math.PI)) * (band.bandWidth / spread) * reached;
}
