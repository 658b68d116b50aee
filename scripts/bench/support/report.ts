/** One benchmark figure: printed by `npm run bench` as one JSON line. `reference` is the figure it
 * is compared with (a target or the reference implementation's figure), or null. */
export type Report = (name: string, unit: string, value: number, reference: number | null) => void;

/** A benchmark module exports `bench`; scripts/bench.ts runs each in turn. */
export type Bench = (report: Report) => Promise<void>;

/**
 * The rate over a whole run of rounds of equal length (total work ÷ total time): the harmonic mean
 * of the rounds' rates. Unlike a median it weighs every round, so a rate that switches between two
 * levels for seconds at a time gives the same figure from one run to the next.
 */
export function overallRate(rates: number[]): number {
  return rates.length / rates.reduce((sum, rate) => sum + 1 / rate, 0);
}

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

/**
 * Rates measured in paired rounds, each against `baseline` measured in the same round: for every
 * other part, its rate ÷ the baseline's, one ratio a round. On this kind of machine a pty round
 * trip's own rate swings by up to 2× from one second to the next (where the scheduler puts the
 * processes that take part), so a part and its baseline are only comparable within a round. The
 * order of the parts rotates from round to round (the machine warms up and drifts within a round
 * too), and one warm-up round counts for nothing. Report the median: one lucky or unlucky round
 * moves it little. `rates` are every part's own rates, of the same rounds.
 */
export async function pairedRatios<Part extends string, Baseline extends Part>(
  rounds: number,
  parts: Record<Part, () => Promise<number>>,
  baseline: Baseline,
): Promise<{ ratios: Record<Exclude<Part, Baseline>, number[]>; rates: Record<Part, number[]> }> {
  const names = Object.keys(parts) as Part[];
  const ratios = {} as Record<Part, number[]>;
  const rates = {} as Record<Part, number[]>;
  for (const name of names) {
    ratios[name] = [];
    rates[name] = [];
  }
  for (let round = 0; round <= rounds; round++) {
    const measured = {} as Record<Part, number>;
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as Part;
      measured[name] = await parts[name]();
    }
    if (round === 0) continue;
    for (const name of names) {
      rates[name].push(measured[name]);
      if (name !== baseline) ratios[name].push(measured[name] / measured[baseline]);
    }
  }
  delete (ratios as Partial<Record<Part, number[]>>)[baseline];
  return { ratios, rates };
}
