import { describe, expect, it } from 'vitest';
import { StraightRuns, TOLERANCE } from './straight-runs.ts';

/** Records what is laid: each sub-path as its list of points. */
function recorder() {
  const runs: [number, number][][] = [];
  return {
    runs,
    moveTo: (x: number, y: number) => runs.push([[x, y]]),
    lineTo: (x: number, y: number) => runs.at(-1)?.push([x, y]),
  };
}

function lay(points: [number, number][]) {
  const sink = recorder();
  const [first, ...rest] = points as [[number, number], ...[number, number][]];
  const line = new StraightRuns(sink, first[0], first[1]);
  for (const [x, y] of rest) line.to(x, y);
  line.end();
  return sink.runs;
}

/** Distance from (x, y) to the polyline `run`. */
function distanceTo(run: [number, number][], x: number, y: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let k = 1; k < run.length; k++) {
    const [ax, ay] = run[k - 1] as [number, number];
    const [bx, by] = run[k] as [number, number];
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy || 1)));
    best = Math.min(best, Math.hypot(x - ax - t * dx, y - ay - t * dy));
  }
  return best;
}

describe('StraightRuns', () => {
  it('lays a straight run of many points as one line, from its first point to its last', () => {
    const points: [number, number][] = Array.from({ length: 5000 }, (_, k) => [10 + k * 0.37, 20 + k * 0.11]);
    expect(lay(points)).toEqual([[points[0], points[4999]]]);
  });

  it('keeps every corner, and every dropped point of a curve within twice the tolerance', () => {
    const circle: [number, number][] = Array.from({ length: 2000 }, (_, k) => {
      const t = (k / 1999) * 2 * Math.PI;
      return [200 + 150 * Math.cos(t), 200 + 150 * Math.sin(t)];
    });
    const [run] = lay(circle) as [[number, number][]];
    expect(run.length).toBeLessThan(circle.length / 4);
    expect(run.length).toBeGreaterThan(20);
    for (const [x, y] of circle) expect(distanceTo(run, x, y)).toBeLessThanOrEqual(2 * TOLERANCE);
    // A zigzag of steps wider than the tolerance keeps each turn.
    const zigzag: [number, number][] = Array.from({ length: 50 }, (_, k) => [k * 5, k % 2 ? 3 : 0]);
    expect(lay(zigzag)).toEqual([zigzag]);
  });

  it('goes back over itself as a new vertex, and starts a new sub-path at a jump', () => {
    const sink = recorder();
    const line = new StraightRuns(sink, 0, 0);
    for (let x = 1; x <= 10; x++) line.to(x, 0);
    for (let x = 9; x >= 4; x--) line.to(x, 0);
    line.jump(100, 100);
    line.to(100, 110);
    line.to(100, 120);
    line.end();
    expect(sink.runs).toEqual([
      [
        [0, 0],
        [10, 0],
        [4, 0],
      ],
      [
        [100, 100],
        [100, 120],
      ],
    ]);
  });
});
