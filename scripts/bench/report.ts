/** One benchmark figure: printed by `npm run bench` as one JSON line. `reference` is the figure it
 * is compared with (a target or the reference implementation's figure), or null. */
export type Report = (name: string, unit: string, value: number, reference: number | null) => void;

/** A benchmark module exports `bench`; scripts/bench.ts runs each in turn. */
export type Bench = (report: Report) => Promise<void>;

/** The best and the median of a set of times. */
export function bestAndMedian(times: number[]): { best: number; median: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { best: sorted[0] ?? Number.NaN, median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN };
}

/** Reports `<name>.best` and `<name>.median` of `times` (ms), both beside `target`. */
export function reportTimes(report: Report, name: string, times: number[], target: number | null): void {
  const { best, median } = bestAndMedian(times);
  report(`${name}.best`, 'ms', best, target);
  report(`${name}.median`, 'ms', median, target);
}
