// HTTP load for the benchmarks: autocannon in a worker thread (so the server under test keeps this
// thread and a core to itself), with every answer checked against the expected body.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The fields of autocannon's options and result used here (the package ships no typings).
interface LoadOptions {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  workers: number;
  expectBody?: string;
  verifyBody?: string;
  warmup: { connections: number; duration: number };
  requests?: { headers: Record<string, string> }[];
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
  /**
   * Headers each connection takes in turn, request after request (e.g. several callers' credentials,
   * so per-caller limits see a share of the load); merged over `headers`.
   */
  rotatingHeaders?: Record<string, string>[];
}

export async function postLoad({
  url,
  headers = {},
  body,
  expected,
  connections,
  seconds = 5,
  warmupSeconds = 1,
  rotatingHeaders,
}: Load) {
  // Each request's answer must be `expected`: by autocannon's own check, or for rotating requests
  // (where it refuses that check) by expected-body.cjs, read in the worker from its environment.
  const check = rotatingHeaders
    ? { verifyBody: fileURLToPath(new URL('./expected-body.cjs', import.meta.url)) }
    : { expectBody: expected };
  if (rotatingHeaders) process.env.TOWPATH_BENCH_EXPECTED_BODY = expected;
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
    connections,
    duration: seconds,
    workers: 1,
    ...check,
    warmup: { connections, duration: warmupSeconds },
    ...(rotatingHeaders ? { requests: rotatingHeaders.map((extra) => ({ headers: extra })) } : {}),
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
