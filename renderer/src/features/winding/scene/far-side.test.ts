import { describe, expect, it } from 'vitest';
import { FAR_MARGIN, frontIndices, surfaceNormals } from './far-side.ts';
import type { SampledProfile } from './ribbon.ts';

/** A ribbon's centre array (two ribbon vertices per path vertex, six floats each) for these points. */
function centresOf(points: [number, number, number][]): Float32Array {
  const centres = new Float32Array(12 * points.length);
  points.forEach(([x, y, z], k) => {
    for (const side of [0, 1]) centres.set([x, y, z, 0, 0, 0], 6 * (2 * k + side));
  });
  return centres;
}

/** A hoop of `count` points around the axis at radius `r`, at carriage position `x`. */
function hoop(x: number, r: number, count: number): [number, number, number][] {
  return Array.from({ length: count }, (_, k) => {
    const t = (k / count) * 2 * Math.PI;
    return [x, r * Math.cos(t), r * Math.sin(t)];
  });
}

const cylinder: SampledProfile = { radius: Float32Array.of(50, 50), x0: 0, dx: 100 };

describe('surfaceNormals', () => {
  it('is radial on a cylinder and tilted by the slope on a cone', () => {
    const points = hoop(30, 50, 8);
    const radial = surfaceNormals(centresOf(points), points.length, cylinder);
    points.forEach(([, y, z], k) => {
      expect(radial[3 * k]).toBeCloseTo(0, 6);
      expect(radial[3 * k + 1]).toBeCloseTo(y / 50, 6);
      expect(radial[3 * k + 2]).toBeCloseTo(z / 50, 6);
    });
    // A cone narrowing from radius 60 to 40 over 100 mm: slope −0.2, the normal leans towards +x.
    const cone: SampledProfile = { radius: Float32Array.of(60, 50, 40), x0: 0, dx: 50 };
    const tilted = surfaceNormals(centresOf([[25, 55, 0]]), 1, cone);
    const length = Math.hypot(0.2, 1);
    expect(tilted[0]).toBeCloseTo(0.2 / length, 6);
    expect(tilted[1]).toBeCloseTo(1 / length, 6);
    expect(tilted[2]).toBeCloseTo(0, 6);
  });
});

describe('frontIndices', () => {
  it('keeps the segments facing the camera, those across the silhouette, and leaves out the far side', () => {
    const points = hoop(50, 50, 360);
    const centres = centresOf(points);
    const normals = surfaceNormals(centres, points.length, cylinder);
    const out = new Uint32Array(6 * (points.length - 1));
    // Far away on +y: the near half (y > 0) faces it.
    const camera = { x: 50, y: 10_000, z: 0 };
    const written = frontIndices(centres, normals, points.length, camera, out);
    const far = points.map(([x, y, z], k) => {
      const d = [x - camera.x, y - camera.y, z - camera.z] as const;
      const facing =
        (normals[3 * k] as number) * d[0] +
        (normals[3 * k + 1] as number) * d[1] +
        (normals[3 * k + 2] as number) * d[2];
      return facing > FAR_MARGIN * Math.hypot(...d);
    });
    const kept: number[] = [];
    for (let k = 1; k < points.length; k++) if (!(far[k] && far[k - 1])) kept.push(k);
    // About half the hoop, a little more for the margin.
    expect(kept.length).toBeGreaterThan(170);
    expect(kept.length).toBeLessThan(200);
    expect(written).toBe(6 * kept.length);
    // Each kept segment's two triangles, in the ribbon's own order.
    const expected = kept.flatMap((k) => {
      const a = 2 * (k - 1);
      const b = 2 * k;
      return [a, a + 1, b, a + 1, b + 1, b];
    });
    expect(Array.from(out.subarray(0, written))).toEqual(expected);
    // What is kept is the near half and a few segments past the silhouette, never the far side.
    for (const k of kept) expect((points[k] as number[])[1]).toBeGreaterThan(-10);
  });

  it('keeps everything when the camera looks along the axis from outside a hoop around it', () => {
    const points = hoop(0, 50, 90);
    const centres = centresOf(points);
    const normals = surfaceNormals(centres, points.length, cylinder);
    const out = new Uint32Array(6 * (points.length - 1));
    // On the axis, 1 m out: every point's normal is square to the line of sight, within the margin.
    expect(frontIndices(centres, normals, points.length, { x: -1000, y: 0, z: 0 }, out)).toBe(6 * 89);
  });
});
