// requestPasswordReset for a known and an unknown email must take the same time, or its answer
// tells which accounts exist: 200 interleaved pairs on a real workstation. Method and targets:
// scripts/bench/README.md.
import { TEST_ARGON2_COST } from '../../../server/testing/argon2.ts';
import { withWorkstation } from '../../../server/testing/workstation.ts';
import { type Bench, median } from '../support/report.ts';

const PAIRS = 200;
const WARMUP_PAIRS = 20;
const KNOWN = 'known@towpath.test';
const UNKNOWN = 'unknown@towpath.test';
const REQUEST = 'mutation($e: String!) { requestPasswordReset(email: $e) }';

export const bench: Bench = async (report) => {
  let now = Date.now();
  const clock = () => now;
  const options = { dashboardApi: { clock, argon2Cost: TEST_ARGON2_COST } };
  await withWorkstation(
    { email: KNOWN, password: 'Bench-passw0rd!x' },
    {},
    async (ws) => {
      const url = `${ws.urls.lan}/graphql`;
      const timed = async (email: string) => {
        const t0 = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ query: REQUEST, variables: { e: email } }),
        });
        const body = await response.text();
        const elapsed = performance.now() - t0;
        if (body !== '{"data":{"requestPasswordReset":true}}') throw new Error(`unexpected answer: ${body}`);
        return elapsed;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let pair = 0; pair < WARMUP_PAIRS + PAIRS; pair++) {
        now += 3_601_000;
        const knownFirst = pair % 2 === 0;
        const first = await timed(knownFirst ? KNOWN : UNKNOWN);
        const second = await timed(knownFirst ? UNKNOWN : KNOWN);
        if (pair < WARMUP_PAIRS) continue;
        known.push(knownFirst ? first : second);
        unknown.push(knownFirst ? second : first);
      }
      ws.dashboardApi.services.resetRequests.flush();
      const requested = ws.dashboardApi.database.sqlite
        .prepare("SELECT COUNT(*) AS n FROM audit_events WHERE action = 'password_reset.requested'")
        .get() as { n: number };
      // Every known request was acted on: the timing is of the real work, not of a refusal.
      if (requested.n !== WARMUP_PAIRS + PAIRS) throw new Error(`only ${requested.n} requests were acted on`);

      const knownMedian = median(known);
      const unknownMedian = median(unknown);
      const knownSlower = known.filter((value, i) => value > (unknown[i] ?? 0)).length / PAIRS;
      const unknownSlower = unknown.filter((value, i) => value > (known[i] ?? 0)).length / PAIRS;
      report('password_reset.known.median', 'ms', knownMedian, null);
      report('password_reset.unknown.median', 'ms', unknownMedian, null);
      report(
        'password_reset.median_difference',
        '%',
        (Math.abs(knownMedian - unknownMedian) / Math.min(knownMedian, unknownMedian)) * 100,
        10,
      );
      report('password_reset.known_slower_share', '%', knownSlower * 100, 65);
      report('password_reset.unknown_slower_share', '%', unknownSlower * 100, 65);
    },
    options,
  );
};
