/** One benchmark figure: printed by `npm run bench` as one JSON line. `reference` is the figure it
 * is compared with (a target or the reference implementation's figure), or null. */
export type Report = (name: string, unit: string, value: number, reference: number | null) => void;

/** A benchmark module exports `bench`; scripts/bench.ts runs each in turn. */
export type Bench = (report: Report) => Promise<void>;
