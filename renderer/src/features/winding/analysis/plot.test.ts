import { describe, expect, it } from 'vitest';
import { extent, linearScale, linePath, niceTicks } from './plot.ts';

describe('plot arithmetic', () => {
  it('ticks are round values 1, 2 or 5 × 10^k apart inside the range', () => {
    expect(niceTicks(0, 90, 5)).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(-72.28, 372.28, 5)).toEqual([-100, 0, 100, 200, 300].filter((v) => v >= -72.28));
    expect(niceTicks(0, 0.6, 4)).toEqual([0, 0.2, 0.4, 0.6]);
    expect(niceTicks(3, 3)).toEqual([3]);
    expect(niceTicks(Number.NaN, 1)).toEqual([]);
  });

  it('a scale maps the domain onto the range, flipped for a y axis', () => {
    const y = linearScale(0, 90, 200, 20);
    expect(y(0)).toBe(200);
    expect(y(90)).toBe(20);
    expect(y(45)).toBe(110);
    expect(linearScale(5, 5, 0, 10)(5)).toBe(5);
  });

  it('a series breaks into subpaths at its gaps', () => {
    const id = (v: number) => v;
    expect(linePath([0, 1, 2, 3, 4], [null, 1, 2, null, 4], id, id)).toBe('M1.0 1.0L2.0 2.0M4.0 4.0');
    expect(linePath([0, 1], [null, null], id, id)).toBe('');
    expect(extent([[null, 3, -1], [7]])).toEqual([-1, 7]);
    expect(extent([[null]])).toEqual([0, 1]);
  });
});
