// Thickness against volume: what a layer lays (tow length × band width × tow thickness) must be
// what its thickness integrates to over the surface.
import { describe, expect, it } from 'vitest';
import { DEG } from '../numeric.ts';
import { geodesicStations } from './geodesic.ts';
import { hemisphereMeridian } from './meridian.ts';
import { equatorCircuits } from './pattern.ts';
import { bandThickness, type GeodesicBand, helicalCylinderThickness } from './thickness.ts';

describe('helical layer on a cylinder', () => {
  it('t·πD·L is the volume of 2N passes of L / cos α at w × t_tow', () => {
    for (const [D, L, w, tTow, alpha, N] of [
      [70, 500, 7, 0.5, 35, 26],
      [69.75, 940, 9.525, 0.35, 55, 18],
      [98, 120, 6, 0.5, 30, 45],
    ] as const) {
      const t = helicalCylinderThickness(tTow, N, w, D, alpha);
      const laid = 2 * N * (L / Math.cos(alpha * DEG)) * w * tTow;
      expect(Math.abs(t * Math.PI * D * L - laid)).toBeLessThan(1e-12 * laid);
    }
  });
});

describe('band model on a dome', () => {
  // Hemispherical dome R 75 with a polar opening 20 mm across; band 7 mm, its inner edge on the
  // opening: c from 10 to 17, centreline 13.5.
  const R = 75;
  const tTow = 0.3;
  const b = 7;
  const N = equatorCircuits(R, 13.5, b);
  const band: GeodesicBand = { crossings: 2 * N, towThickness: tTow, bandWidth: b, cIn: 10, cOut: 17 };

  it('is zero inside the opening, finite at the band, and tends to fibre continuity far from it', () => {
    expect(bandThickness(9.99, band)).toBe(0);
    expect(bandThickness(10, band)).toBe(0);
    const atOuterEdge = bandThickness(17, band);
    expect(atOuterEdge).toBeCloseTo(((2 * N * tTow) / (2 * Math.PI)) * (7 / 7) * Math.acos(10 / 17), 12);
    // Far out: n·t_tow·b / (2π·√(r² − c²)), the continuity law with the band's mean c.
    const r = 70;
    const continuity = (2 * N * tTow * b) / (2 * Math.PI * Math.sqrt(r * r - 13.5 * 13.5));
    expect(Math.abs(bandThickness(r, band) - continuity)).toBeLessThan(2e-3 * continuity);
    // At the equator it meets the cylinder's thickness at the geodesic angle asin(c/R).
    const cylinder = helicalCylinderThickness(tTow, N, b, 2 * R, Math.asin(13.5 / R) / DEG);
    expect(Math.abs(bandThickness(R, band) - cylinder)).toBeLessThan(2e-3 * cylinder);
  });

  it('integrates over the dome to the tow laid on it (centreline length × b × t_tow) within 1 %', () => {
    const segments = 8192;
    const meridian = hemisphereMeridian(R, segments, 10);
    // ∫ t dA over the chain, Simpson on each frustum (r is linear along it).
    let volume = 0;
    for (let i = 0; i < segments; i++) {
      const ra = meridian.r[i] ?? 0;
      const rb = meridian.r[i + 1] ?? 0;
      const length = Math.hypot((meridian.z[i + 1] ?? 0) - (meridian.z[i] ?? 0), rb - ra);
      const f = (r: number) => bandThickness(r, band) * 2 * Math.PI * r;
      volume += (length / 6) * (f(ra) + 4 * f((ra + rb) / 2) + f(rb));
    }
    const stations = geodesicStations(meridian, 13.5, 1);
    const inAndOut = 2 * (stations?.s[stations.s.length - 1] ?? 0);
    const laid = N * inAndOut * b * tTow;
    expect(Math.abs(volume - laid)).toBeLessThan(0.01 * laid);
    // On a hemisphere every geodesic of the band runs a quarter great circle whatever its c, so
    // the centreline's length is the band's mean and only quadrature error is left.
    expect(Math.abs(volume - laid)).toBeLessThan(1e-5 * laid);
  });
});
