// The unwrapped view's geometry and the tow bands' layout, as pure functions: angles from the
// engine's preview, splitting at 0°/360°, the segment count against the engine's own path, band
// width and each layer's radius, and the mandrel's surface along the axis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPreview } from '#engine/gcode/index.ts';
import { planToString } from '#engine/plan/index.ts';
import { parseWindDefinition } from '#engine/wind/index.ts';
import { REFERENCE_ROOT } from '../../../../../reference/paths.ts';
import { mandrelProfile, radiusAt } from '../preview/mandrel-profile.ts';
import { viewGeometry } from '../preview/session.ts';
import { layerColour, PENDING_COLOUR } from './colours.ts';
import { bandLayout, buildRibbon, sampledRadius, sampleProfile, tableRows, tableTexel } from './ribbon.ts';
import { segmentPieces, unwrappedCounts, vertexAngles, wrapDirection } from './unwrap.ts';

const read = (path: string) => readFileSync(join(REFERENCE_ROOT, path));

function planned(name: string) {
  const definition = parseWindDefinition(new Uint8Array(read(`${name}/input.wind`)), 'input.wind');
  const gcode = planToString(definition).gcode;
  return {
    definition,
    gcode,
    geometry: viewGeometry(buildPreview(new TextEncoder().encode(gcode)), definition, false),
  };
}

/** The mandrel angles the G-code itself commands (A words, physical: G92 shifts are undone). */
function commandedTurns(gcode: string): number[] {
  const angles = [0];
  let offset = 0;
  let a = 0;
  for (const line of gcode.split('\n')) {
    const code = line.split(';')[0]?.trim() ?? '';
    const word = /\bA(-?[\d.]+)/.exec(code);
    if (code.startsWith('G92') && word) {
      offset = a - Number(word[1]);
      continue;
    }
    if (/^G0?[01]\b/.test(code) && word) {
      a = Number(word[1]) + offset;
      angles.push(a);
    }
  }
  return angles;
}

describe('unwrapping', () => {
  it('reads each vertex angle in [0, 360) from its position', () => {
    const r = 10;
    const degrees = [0, 45, 90, 179.5, 180, 270, 359];
    const positions = new Float32Array(
      degrees.flatMap((d) => [1, r * Math.cos((d * Math.PI) / 180), r * Math.sin((d * Math.PI) / 180)]),
    );
    const angles = vertexAngles(positions, degrees.length);
    for (const [k, d] of degrees.entries()) expect(angles[k]).toBeCloseTo(d, 3);
  });

  it('splits a step across the seam into two pieces meeting the edges at the interpolated position', () => {
    expect(wrapDirection(350, 5)).toBe(1);
    expect(wrapDirection(5, 350)).toBe(-1);
    expect(wrapDirection(10, 15)).toBe(0);
    expect(segmentPieces(0, 10, 10, 15)).toEqual([{ x0: 0, a0: 10, x1: 10, a1: 15 }]);
    // 350° → 5°: 10° before the seam, 5° after; the carriage moves 0 → 15.
    const forwards = segmentPieces(0, 350, 15, 5);
    expect(forwards).toHaveLength(2);
    expect(forwards[0]).toMatchObject({ x0: 0, a0: 350, a1: 360 });
    expect(forwards[0]?.x1).toBeCloseTo(10, 9);
    expect(forwards[1]).toMatchObject({ a0: 0, x1: 15, a1: 5 });
    expect(forwards[1]?.x0).toBeCloseTo(10, 9);
    const backwards = segmentPieces(0, 5, 15, 350);
    expect(backwards[0]).toMatchObject({ a1: 0 });
    expect(backwards[0]?.x1).toBeCloseTo(5, 9);
    expect(backwards[1]).toMatchObject({ a0: 360, a1: 350 });
  });

  it('counts one segment per step of the engine path and one split per time the mandrel crosses 0°', () => {
    for (const name of ['conf_valid_hoop', 'conf_valid_helical', 'conf_valid_multilayer']) {
      const { gcode, geometry } = planned(name);
      const counts = unwrappedCounts(vertexAngles(geometry.positions, geometry.vertexCount));
      expect(counts.segments, name).toBe(geometry.vertexCount - 1);
      // Independently, from the A words: each move crosses floor(a/360) boundaries between its ends.
      const turns = commandedTurns(gcode);
      let crossings = 0;
      for (let k = 1; k < turns.length; k++)
        crossings += Math.abs(
          Math.floor((turns[k] as number) / 360) - Math.floor((turns[k - 1] as number) / 360),
        );
      expect(counts.wraps, name).toBe(crossings);
      expect(counts.pieces, name).toBe(counts.segments + counts.wraps);
    }
  });
});

describe('tow bands', () => {
  it('are the tow wide, each layer one tow thickness above the tow-laying layers under it', () => {
    const layout = bandLayout({
      tow: { width: 7, thickness: 0.5 },
      mandrel: { radius: 35, startX: 0, length: 100, fitted: false, profile: null },
      layers: ['hoop', 'helical', 'skip', 'helical', 'hoop'].map((windType, index) => ({
        index: index + 1,
        windType,
        firstVertex: 0,
        vertexCount: 0,
      })),
    });
    expect(layout.width).toBe(7);
    expect(layout.thickness).toBe(0.5);
    expect([...layout.lift]).toEqual([0, 0.5, 1, 1, 1.5]);
    expect([...layout.band]).toEqual([1, 1, 0, 1, 1]);
  });

  it('are built as a ribbon the tow wide, across the path, each layer above the one under it', () => {
    const { geometry, definition } = planned('conf_valid_multilayer');
    const layout = bandLayout(geometry);
    const profile = sampleProfile(geometry.mandrel);
    const ribbon = buildRibbon(geometry, layout, profile);
    const n = geometry.vertexCount;
    expect(ribbon.centreAcross).toHaveLength(12 * n);
    expect(ribbon.index).toHaveLength(6 * (n - 1));
    const R = definition.mandrelParameters.diameter / 2;
    const t = definition.towParameters.thickness;
    const c = ribbon.centreAcross;
    for (let k = 1; k < n - 1; k += 97) {
      const v = 2 * k;
      const across = [c[6 * v + 3], c[6 * v + 4], c[6 * v + 5]] as number[];
      // Half the tow either side: the band is the tow's width.
      expect(2 * Math.hypot(...across), `vertex ${k}`).toBeCloseTo(definition.towParameters.width, 4);
      // On the surface: square to the radius there.
      const centre = [c[6 * v], c[6 * v + 1], c[6 * v + 2]] as number[];
      const radius = Math.hypot(centre[1] as number, centre[2] as number);
      const radial =
        (across[1] as number) * (centre[1] as number) + (across[2] as number) * (centre[2] as number);
      expect(Math.abs(radial) / radius, `vertex ${k}`).toBeLessThan(1e-3);
      // Square to the path: the neighbours' chord.
      const p = geometry.positions;
      const chord = [0, 1, 2].map((i) => (p[3 * (k + 1) + i] as number) - (p[3 * (k - 1) + i] as number));
      const dot = chord.reduce((sum, d, i) => sum + d * (across[i] as number), 0);
      expect(Math.abs(dot) / (Math.hypot(...chord) * Math.hypot(...across) || 1), `vertex ${k}`).toBeLessThan(
        1e-3,
      );
      // Each layer between the mandrel plus the layers under it and one tow thickness more.
      const layer = geometry.layerOf[k] as number;
      const lift = radius - R;
      expect(lift, `vertex ${k}`).toBeGreaterThanOrEqual((layout.lift[layer] as number) + 0.15 * t - 1e-4);
      expect(lift, `vertex ${k}`).toBeLessThanOrEqual((layout.lift[layer] as number) + 0.95 * t + 1e-4);
      expect(ribbon.command[v]).toBe(geometry.commandIndex[k]);
      expect(ribbon.layer[v + 1]).toBe(layer);
    }
    // Layer 2 lies above layer 1.
    expect(layout.lift[1]).toBe(t);
  });

  it('pick a visible width for G-code from elsewhere', () => {
    const layout = bandLayout({
      tow: null,
      mandrel: { radius: 40, startX: 0, length: 100, fitted: true, profile: null },
      layers: [],
    });
    expect(layout.width).toBe(2);
    expect(layout.thickness).toBeCloseTo(0.2, 9);
  });

  it('lay any number of layers out in tables with distinct colours, none the pending colour', () => {
    expect(tableTexel(0)).toEqual([0, 0]);
    expect(tableTexel(1025)).toEqual([1, 1]);
    expect(tableRows(1)).toBe(1);
    expect(tableRows(2049)).toBe(3);
    const colours = Array.from({ length: 40 }, (_, k) => layerColour(k));
    for (let k = 1; k < colours.length; k++) expect(colours[k], `layer ${k}`).not.toBe(colours[k - 1]);
    expect(new Set(colours).size).toBe(colours.length);
    expect(colours).not.toContain(PENDING_COLOUR);
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('the mandrel surface', () => {
  it('is a plain cylinder without domes or cone', () => {
    const { definition, geometry } = planned('conf_valid_hoop');
    expect(mandrelProfile(definition)).toBeNull();
    const sampled = sampleProfile(geometry.mandrel);
    expect(sampledRadius(sampled, -50)).toBe(geometry.mandrel.radius);
    expect(sampledRadius(sampled, 1e6)).toBe(geometry.mandrel.radius);
  });

  it('narrows linearly along a reducing cone', () => {
    const definition = parseWindDefinition(
      new Uint8Array(
        readFileSync(join(REFERENCE_ROOT, '..', '..', 'resources', 'examples', 'reducing-cone.wind')),
      ),
      'reducing-cone.wind',
    );
    const profile = mandrelProfile(definition);
    if (!profile) throw new Error('a cone has a profile');
    const { diameter, windLength, endDiameter } = definition.mandrelParameters;
    expect(radiusAt(profile, 0)).toBeCloseTo(diameter / 2, 6);
    expect(radiusAt(profile, windLength)).toBeCloseTo((endDiameter ?? 0) / 2, 6);
    expect(radiusAt(profile, windLength / 2)).toBeCloseTo((diameter + (endDiameter ?? 0)) / 4, 6);
  });

  it('follows a vessel’s domes beyond the cylinder, down to the polar openings', () => {
    const definition = parseWindDefinition(
      new Uint8Array(readFileSync(join(REFERENCE_ROOT, '..', '..', 'resources', 'examples', 'vessel.wind'))),
      'vessel.wind',
    );
    const profile = mandrelProfile(definition);
    if (!profile) throw new Error('a vessel has a profile');
    const R = definition.mandrelParameters.diameter / 2;
    const L = definition.mandrelParameters.windLength;
    expect(radiusAt(profile, L / 2)).toBeCloseTo(R, 6);
    expect(radiusAt(profile, 0)).toBeCloseTo(R, 6);
    const xs = [...profile.x];
    expect(xs[0]).toBeLessThan(0);
    expect(xs.at(-1)).toBeGreaterThan(L);
    for (let k = 1; k < xs.length; k++) expect(xs[k]).toBeGreaterThanOrEqual(xs[k - 1] as number);
    const domes = definition.mandrelParameters.domes;
    const start = domes?.both ?? domes?.start;
    expect(profile.r[0]).toBeCloseTo((start?.polarOpeningDiameter ?? 0) / 2, 6);
  });
});
