// The arithmetic of a line plot, apart from React: round tick values for an axis, a linear scale,
// and a series turned into SVG path data that breaks where the series has no value (a layer that
// lays nothing on the domes leaves a gap, not a line to zero).

/** About `count` round values (1, 2 or 5 × 10^k apart) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(Number.isFinite(min) && Number.isFinite(max))) return [];
  if (max <= min) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) {
    // Multiples of the step, written without the float noise of repeated addition.
    ticks.push(Number((Math.round(v / step) * step).toPrecision(12)));
  }
  return ticks;
}

/** Maps [d0, d1] linearly onto [r0, r1]; a degenerate domain maps to the range's middle. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/** SVG path data of the points (x, y), a new subpath after every gap (a null y). */
export function linePath(
  xs: readonly number[],
  ys: readonly (number | null)[],
  x: (v: number) => number,
  y: (v: number) => number,
): string {
  const parts: string[] = [];
  let drawing = false;
  for (let i = 0; i < xs.length; i++) {
    const value = ys[i];
    if (value === null || value === undefined || !Number.isFinite(value)) {
      drawing = false;
      continue;
    }
    parts.push(`${drawing ? 'L' : 'M'}${x(xs[i] ?? 0).toFixed(1)} ${y(value).toFixed(1)}`);
    drawing = true;
  }
  return parts.join('');
}

/** Least and greatest finite values of the series together (0…1 when there are none). */
export function extent(series: readonly (readonly (number | null)[])[]): [number, number] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const values of series)
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      low = Math.min(low, v);
      high = Math.max(high, v);
    }
  return low <= high ? [low, high] : [0, 1];
}
