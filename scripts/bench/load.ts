// HTTP load for the benchmarks: autocannon in a worker thread (so the server under test keeps this
// thread and a core to itself), with every answer checked against the expected body.
import { createRequire } from 'node:module';

// The fields of autocannon's options and result used here (the package ships no typings).
interface LoadOptions {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  workers: number;
  expectBody: string;
  warmup: { connections: number; duration: number };
}
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: LoadOptions,
) => Promise<LoadResult>;

export interface Load {
  url: string;
  headers?: Record<string, string>;
  body: string;
  /** Every answer must be exactly this; a rate built on wrong answers is no figure. */
  expected: string;
  connections: number;
  seconds?: number;
  warmupSeconds?: number;
}

export async function postLoad({
  url,
  headers = {},
  body,
  expected,
  connections,
  seconds = 5,
  warmupSeconds = 1,
}: Load) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
    connections,
    duration: seconds,
    workers: 1,
    expectBody: expected,
    warmup: { connections, duration: warmupSeconds },
  });
  const wrong = result.errors + result.timeouts + result.non2xx + result.mismatches;
  if (wrong > 0 || result.requests.total === 0) {
    throw new Error(
      `load on ${url} had ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.non2xx} non-2xx and ${result.mismatches} unexpected bodies of ${result.requests.total}`,
    );
  }
  return result;
}
