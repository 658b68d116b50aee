// What a vessel's plan reports along the part: the positions, each layer's fibre angle and
// thickness (the cylinder's closed form, the band model's volume against the tow laid), the
// laminate summed, and the coverage of the equator; cylinders report nothing new.
import { describe, expect, it } from 'vitest';
import { DEG, RAD } from '../numeric.ts';
import type { HelicalLayer, Layer } from '../wind/types.ts';
import { ANALYSIS_POINTS } from './analysis.ts';
import { planToString } from './index.ts';
import { geodesic, kinematicsOf, vessel } from './testing/vessels.ts';

const helical: HelicalLayer = {
  windType: 'helical',
  windAngle: 55,
  patternNumber: 2,
  skipIndex: 1,
  lockDegrees: 180,
  leadInMM: 10,
  leadOutDegrees: 20,
  skipInitialNearLock: false,
};
const hoop: Layer = { windType: 'hoop', terminal: false };
const definition = vessel([hoop, geodesic(), helical, { windType: 'skip', mandrelRotation: 90 }]);
const planned = planToString(definition);
const analysis = planned.summary.analysis;
if (analysis === undefined) throw new Error('a vessel plan has no analysis');
const { z_mm: z, radius_mm: radius } = analysis;
const L = 300;
const R = 75;
const onCylinder = (i: number) => (z[i] ?? 0) >= 0 && (z[i] ?? 0) <= L;

describe('analysis of a vessel plan', () => {
  it('samples the meridian from pole to pole, evenly along it, with the mandrel radius', () => {
    expect(z).toHaveLength(ANALYSIS_POINTS);
    expect(radius).toHaveLength(ANALYSIS_POINTS);
    // Hemispheres of R 75 cut at the 40 mm opening: z from −√(75² − 20²) to L + √(75² − 20²).
    const tip = Math.sqrt(R * R - 20 * 20);
    expect(z[0]).toBeCloseTo(-tip, 9);
    expect(z.at(-1)).toBeCloseTo(L + tip, 9);
    const steps: number[] = [];
    for (let i = 1; i < z.length; i++) {
      expect(z[i] ?? 0).toBeGreaterThanOrEqual(z[i - 1] ?? 0);
      steps.push(Math.hypot((z[i] ?? 0) - (z[i - 1] ?? 0), (radius[i] ?? 0) - (radius[i - 1] ?? 0)));
      const zi = z[i] ?? 0;
      const off = zi < 0 ? Math.hypot(zi, radius[i] ?? 0) : zi > L ? Math.hypot(zi - L, radius[i] ?? 0) : R;
      expect(Math.abs(off - R)).toBeLessThan(1e-3);
    }
    // Evenly spaced along the meridian (a chord is a hair shorter than its arc on a dome).
    expect(Math.max(...steps) - Math.min(...steps)).toBeLessThan(1e-3 * Math.max(...steps));
    expect(analysis.layers.map((layer) => [layer.index, layer.wind_type])).toEqual([
      [1, 'hoop'],
      [2, 'geodesic'],
      [3, 'helical'],
      [4, 'skip'],
    ]);
  });

  it('a helical layer lays exactly 2·t_tow·N·w/(πD·cos α) on the cylinder, N its circuits in the G-code', () => {
    const layer = analysis.layers[2];
    const start = planned.gcode.indexOf('; Layer 3 of 4');
    const end = planned.gcode.indexOf('; Layer 4 of 4');
    const circuits = planned.gcode
      .slice(start, end)
      .split('\n')
      .filter((l) => l.includes('Pattern:')).length;
    const exact = (2 * 0.3 * circuits * 6) / (Math.PI * 150 * Math.cos(55 * DEG));
    z.forEach((_, i) => {
      if (onCylinder(i)) {
        expect(layer?.thickness_mm[i]).toBe(exact);
        expect(layer?.angle_deg[i]).toBe(55);
      } else {
        expect(layer?.thickness_mm[i]).toBe(0);
        expect(layer?.angle_deg[i]).toBeNull();
      }
    });
    expect(layer?.coverage?.slots).toBe(circuits);
    expect(layer?.coverage?.overlap_percent).toBeCloseTo(
      ((circuits * 6) / (Math.PI * 150 * Math.cos(55 * DEG)) - 1) * 100,
      9,
    );
    const hoopLayer = analysis.layers[0];
    expect(hoopLayer?.thickness_mm.filter((t, i) => onCylinder(i) && t === 0.6)).toHaveLength(
      z.filter((_, i) => onCylinder(i)).length,
    );
    expect(hoopLayer?.angle_deg.find((a) => a !== null)).toBeCloseTo(
      Math.atan((Math.PI * 150) / 6) * RAD,
      12,
    );
    expect(analysis.layers[3]?.thickness_mm.every((t) => t === 0)).toBe(true);
  });

  it('a geodesic layer: α = asin(c/r), nothing inside the band, the laminate summed layer by layer', () => {
    const k = kinematicsOf(definition, 1);
    const layer = analysis.layers[1];
    z.forEach((_, i) => {
      const r = radius[i] ?? 0;
      const angle = layer?.angle_deg[i];
      if (r < k.c) expect(angle).toBeNull();
      else expect(angle).toBeCloseTo(Math.asin(k.c / r) * RAD, 12);
      if (r <= k.c - 3) expect(layer?.thickness_mm[i]).toBe(0);
      else expect(layer?.thickness_mm[i]).toBeGreaterThan(0);
      const sum = analysis.layers.slice(0, 2).reduce((total, l) => total + (l.thickness_mm[i] ?? 0), 0);
      expect(layer?.cumulative_thickness_mm[i]).toBeCloseTo(sum, 12);
      expect(analysis.layers[3]?.cumulative_thickness_mm[i]).toBeCloseTo(
        sum + (analysis.layers[2]?.thickness_mm[i] ?? 0),
        12,
      );
    });
    expect(layer?.coverage).toEqual({
      slots: k.circuits,
      advance: k.advance,
      overlap_percent: expect.closeTo(
        ((k.circuits * 6) / (2 * Math.PI * Math.sqrt(R * R - k.c * k.c)) - 1) * 100,
        9,
      ),
      dwell_deg: k.poleDwell * RAD,
    });
    expect(layer?.coverage?.dwell_deg).toBeGreaterThanOrEqual(0);
    // On the cylinder the band model meets fibre continuity: 2·t_tow·N·b/(2πR·cos α) within 1e-3.
    const continuity = (2 * 0.3 * k.circuits * 6) / (2 * Math.PI * Math.sqrt(R * R - k.c * k.c));
    const middle = z.findIndex((zi) => zi > L / 2);
    expect(Math.abs((layer?.thickness_mm[middle] ?? 0) - continuity)).toBeLessThan(1e-3 * continuity);
  });

  it("a geodesic layer's thickness over the whole vessel holds the tow it lays (× b × t_tow) within 1 %", () => {
    const layer = analysis.layers[1];
    // ∫ t dA with dA = 2π·r·ds, trapezoids along the meridian through the series as reported.
    let volume = 0;
    for (let i = 1; i < z.length; i++) {
      const ds = Math.hypot((z[i] ?? 0) - (z[i - 1] ?? 0), (radius[i] ?? 0) - (radius[i - 1] ?? 0));
      const f = (j: number) => (layer?.thickness_mm[j] ?? 0) * 2 * Math.PI * (radius[j] ?? 0);
      volume += (ds * (f(i - 1) + f(i))) / 2;
    }
    const laid = (planned.summary.layers[1]?.tow_m ?? 0) * 1000 * 6 * 0.3;
    expect(Math.abs(volume - laid)).toBeLessThan(0.01 * laid);
  });

  it('a cylinder reports no analysis: its plan answer stays as the reference writes it', () => {
    const cylinder = { ...definition, mandrelParameters: { ...definition.mandrelParameters, domes: null } };
    const summary = planToString({ ...cylinder, layers: [hoop, helical] }).summary;
    expect('analysis' in summary).toBe(false);
  });
});
