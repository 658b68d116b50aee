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
