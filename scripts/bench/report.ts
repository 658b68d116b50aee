/** One benchmark figure: printed by `npm run bench` as one JSON line. `reference` is the figure it
 * is compared with (a target or the reference implementation's figure), or null. */
export type Report = (name: string, unit: string, value: number, reference: number | null) => void;

/** A benchmark module exports `bench`; scripts/bench.ts runs each in turn. */
export type Bench = (report: Report) => Promise<void>;

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

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
