import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { SimulationError } from '../errors.ts';
import { buildPreview, PreviewBuilder, type PreviewGeometry, simulateGcode } from './index.ts';

const validCases = readdirSync(REFERENCE_ROOT).filter((name) =>
  existsSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode')),
);
const encoder = new TextEncoder();
const DEG = Math.PI / 180;

function referenceBytes(name: string, file = 'expected-xab.gcode'): Uint8Array {
  return new Uint8Array(readFileSync(join(REFERENCE_ROOT, name, file)));
}

/**
 * An independent, string-based reading of a planner program: the physical end position (G92
 * shifts only the logical coordinates) and the vertex count a 5°-step subdivision must give.
 */
function walk(text: string, maxStep = 5): { x: number; a: number; vertices: number; diameter: number } {
  let diameter = Number.NaN;
  let lx = 0;
  let la = 0;
  let ox = 0;
  let oa = 0;
  let px = 0;
  let pa = 0;
  let vertices = 1;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('; Parameters ')) diameter = JSON.parse(line.slice(13)).mandrel.diameter;
    if (line === '' || line.startsWith(';')) continue;
    const [command, ...words] = line.split(/\s+/);
    const values = new Map(words.map((w) => [w[0] === 'Y' ? 'A' : (w[0] as string), Number(w.slice(1))]));
    if (command === 'G0' || command === 'G1') {
      const nx = values.get('X') ?? lx;
      const na = values.get('A') ?? la;
      if (nx !== lx || na !== la) {
        const tx = nx + ox;
        const ta = na + oa;
        vertices += Math.max(1, Math.ceil(Math.abs(ta - pa) / maxStep));
        px = tx;
        pa = ta;
      }
      lx = nx;
      la = na;
    } else if (command === 'G92') {
      lx = values.get('X') ?? lx;
      la = values.get('A') ?? la;
      ox = px - lx;
      oa = pa - la;
    }
  }
  return { x: px, a: pa, vertices, diameter };
}

function vertex(g: PreviewGeometry, k: number): [number, number, number] {
  return [g.positions[3 * k] as number, g.positions[3 * k + 1] as number, g.positions[3 * k + 2] as number];
}

function checkInvariants(g: PreviewGeometry, maxStep: number): void {
  expect(g.positions.length).toBe(3 * g.vertexCount);
  expect(g.commandIndex.length).toBe(g.vertexCount);
  let offSurface = 0;
  let longSteps = 0;
  let backwards = 0;
  for (let k = 0; k < g.vertexCount; k++) {
    const [, y, z] = vertex(g, k);
    // Float32 storage: one rounding per coordinate, far inside 1e-6 relative.
    if (Math.abs(Math.hypot(y, z) - g.radius) > 1e-6 * g.radius) offSurface++;
    if (k > 0) {
      const [, y0, z0] = vertex(g, k - 1);
      const turn = Math.abs(Math.atan2(y0 * z - z0 * y, y0 * y + z0 * z)) / DEG;
      if (turn > maxStep + 1e-3) longSteps++;
      if ((g.commandIndex[k] as number) < (g.commandIndex[k - 1] as number)) backwards++;
    }
  }
  expect({ offSurface, longSteps, backwards }).toEqual({ offSurface: 0, longSteps: 0, backwards: 0 });
  expect(g.commandIndex[0]).toBe(0);
  expect(g.commandIndex[g.vertexCount - 1]).toBeLessThanOrEqual(g.commandCount);
  let next = 0;
  for (const layer of g.layers) {
    expect(layer.firstVertex).toBe(next);
    expect(layer.vertexCount).toBeGreaterThanOrEqual(0);
    next += layer.vertexCount;
  }
  if (g.layers.length > 0) expect(next).toBe(g.vertexCount);
}

describe('preview of the reference cases', () => {
  for (const name of validCases) {
    it(`${name}: vertices on the surface, layers, command order, start and end`, () => {
      const bytes = referenceBytes(name);
      const text = new TextDecoder().decode(bytes);
      const g = buildPreview(bytes);
      checkInvariants(g, 5);

      const expected = walk(text);
      expect(g.radius).toBe(expected.diameter / 2);
      expect(g.vertexCount).toBe(expected.vertices);
      expect(vertex(g, 0)).toEqual([0, Math.fround(g.radius), 0]);
      const [x, y, z] = vertex(g, g.vertexCount - 1);
      expect(x).toBeCloseTo(expected.x, 4);
      expect(y).toBeCloseTo(g.radius * Math.cos(expected.a * DEG), 4);
      expect(z).toBeCloseTo(g.radius * Math.sin(expected.a * DEG), 4);

      const layerLines = text.split('\n').filter((l) => l.startsWith('; Layer '));
      expect(g.layers.map((l) => `; Layer ${l.index} of ${layerLines.length}: ${l.windType}`)).toEqual(
        layerLines,
      );
      const commands = text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith(';')).length;
      expect(g.commandCount).toBe(commands);
      expect(g.summary).toEqual(simulateGcode(bytes));

      // The time per vertex climbs to the simulator's estimate for the whole program.
      expect(g.elapsed[0]).toBe(0);
      for (let k = 1; k < g.vertexCount; k++) {
        if ((g.elapsed[k] as number) < (g.elapsed[k - 1] as number)) throw new Error(`time falls at ${k}`);
      }
      const end = g.elapsed[g.vertexCount - 1] as number;
      expect(Math.abs(end - g.summary.estimated_time_s)).toBeLessThanOrEqual(
        g.summary.estimated_time_s * 1e-6,
      );
    });
  }

  it('gives the same geometry for the xyz program and for any chunking', () => {
    const whole = buildPreview(referenceBytes('simple_cylinder'));
    const xyz = buildPreview(referenceBytes('simple_cylinder', 'expected-xyz.gcode'));
    expect(xyz.positions).toEqual(whole.positions);
    expect(xyz.commandIndex).toEqual(whole.commandIndex);
    const bytes = referenceBytes('simple_cylinder');
    const chunks: Uint8Array[] = [];
    for (let i = 0, k = 0; i < bytes.length; k++) {
      const n = 1 + (k % 3);
      chunks.push(bytes.subarray(i, i + n));
      i += n;
    }
    const chunked = buildPreview(chunks);
    expect(chunked.positions).toEqual(whole.positions);
    expect(chunked.layers).toEqual(whole.layers);
  });
});

describe('preview geometry', () => {
  const H = '; Parameters {"mandrel":{"diameter":70,"windLength":500},"tow":{"width":7,"thickness":0.5}}';

  it('puts the carriage on +X and the mandrel angle at y = r cos θ, z = r sin θ', () => {
    const g = buildPreview(encoder.encode(`${H}\nG0 F600\nG0 X10 A90`));
    expect(g.vertexCount).toBe(1 + 18);
    const [x, y, z] = vertex(g, g.vertexCount - 1);
    expect([x, y, z].map((v) => Number(v.toFixed(4)))).toEqual([10, 0, 35]);
    // Half-way along the helix: carriage and angle advance together.
    const [xm, ym, zm] = vertex(g, 9);
    expect(xm).toBeCloseTo(5, 5);
    expect(ym).toBeCloseTo(35 * Math.cos(45 * DEG), 4);
    expect(zm).toBeCloseTo(35 * Math.sin(45 * DEG), 4);
    expect([...g.commandIndex]).toEqual([0, ...Array(18).fill(2)]);
    // The move's time is shared out along its steps: half-way there, half the move's time.
    const total = g.summary.estimated_time_s;
    expect(total).toBeGreaterThan(0);
    expect(g.elapsed[9]).toBeCloseTo(total / 2, 5);
    expect(g.elapsed[18]).toBeCloseTo(total, 5);
  });

  it('keeps the physical angle across G92 and returns to physical zero on G28', () => {
    const g = buildPreview(encoder.encode(`${H}\nG0 F600 X0 A300\nG92 A0\nG0 A90\nG28 A\nG28`));
    checkInvariants(g, 5);
    // 300° + 90° = 390°: the re-zeroed turn continues where the previous one stopped.
    const afterTurn = 1 + 60 + 18;
    const [, y, z] = vertex(g, afterTurn - 1);
    expect(y).toBeCloseTo(35 * Math.cos(390 * DEG), 4);
    expect(z).toBeCloseTo(35 * Math.sin(390 * DEG), 4);
    // G28 A turns back 390° to the physical zero; the second G28 has nothing left to do.
    expect(g.vertexCount).toBe(afterTurn + 78);
    expect(vertex(g, g.vertexCount - 1)).toEqual([0, 35, 0]);
    expect(g.commandIndex[g.vertexCount - 1]).toBe(4);
  });

  it('scales vertices made before a late header', () => {
    const body = 'G0 F600 X3 A200\nG92 A0\nG0 X7 A-45\n; Layer 1 of 1: hoop\nG0 X1 A30';
    const early = buildPreview(encoder.encode(`${H}\n${body}`));
    const late = buildPreview(encoder.encode(`${body}\n${H}`));
    expect(late.vertexCount).toBe(early.vertexCount);
    for (let k = 0; k < early.positions.length; k++) {
      expect(Math.abs((late.positions[k] as number) - (early.positions[k] as number))).toBeLessThan(1e-5);
    }
    expect(late.layers).toEqual([
      { index: 1, windType: 'hoop', firstVertex: 0, vertexCount: late.vertexCount },
    ]);
  });

  it('honours maxStepDegrees and rejects a bad one', () => {
    const bytes = encoder.encode(`${H}\nG0 F600 A360`);
    expect(buildPreview(bytes, { maxStepDegrees: 1 }).vertexCount).toBe(361);
    expect(buildPreview(bytes, { maxStepDegrees: 90 }).vertexCount).toBe(5);
    checkInvariants(buildPreview(bytes, { maxStepDegrees: 1 }), 1);
    expect(() => new PreviewBuilder({ maxStepDegrees: 0 })).toThrow(RangeError);
  });

  it('ignores comments that are not layer headings', () => {
    const g = buildPreview(
      encoder.encode(`${H}\n; Layer x of 2: hoop\n; Layer 1 of 2:\n; Layer 2 of 2: skip\nG0 F1 A1`),
    );
    expect(g.layers).toEqual([{ index: 2, windType: 'skip', firstVertex: 0, vertexCount: 2 }]);
  });

  it('fails like the simulator on programs it cannot read', () => {
    expect(() => buildPreview(encoder.encode(`${H}\nG2 X1`))).toThrow(SimulationError);
    expect(() => buildPreview(encoder.encode('G0 X1'))).toThrow(
      'Unable to locate Parameters header in program',
    );
  });
});
