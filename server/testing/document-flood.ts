// Test and bench support: a flood of large and maximum-size GraphQL documents from anonymous
// clients, each document distinct (so no cache can answer it), against a core in its own process.

import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';

/** The largest document that still passes the byte limit: 99,000 bytes of 8,990 fields. */
export const MAXIMUM_DOCUMENT = { bytes: 99_000, fields: 8_990 } as const;

/**
 * `{ f1 f2 … }`: exactly `bytes` bytes (ASCII) of `fields` field names, the first one naming the
 * document `n` so that every document is distinct.
 */
export function fieldsDocument(n: number, bytes: number, fields: number): string {
  const first = `d${n}`;
  // `{ ` + names separated by single spaces + ` }`.
  const nameBytes = bytes - 4 - (fields - 1);
  const rest = nameBytes - first.length;
  if (fields < 2 || rest < fields - 1) throw new Error(`cannot fit ${fields} fields in ${bytes} bytes`);
  const width = Math.floor(rest / (fields - 1));
  const wider = rest - width * (fields - 1);
  const names: string[] = [first];
  for (let i = 1; i < fields; i++) {
    const prefix = `a${i.toString(36)}`;
    names.push(prefix.padEnd(i <= wider ? width + 1 : width, 'x'));
  }
  return `{ ${names.join(' ')} }`;
}

/** A distinct document of exactly `bytes` bytes, about ten bytes a field (a 2–5 MB one in the flood). */
export function largeDocument(n: number, bytes: number): string {
  const chunk = 'abcdefghi ';
  const body = chunk.repeat(Math.floor((bytes - 4 - 12) / chunk.length));
  const head = `d${n} `.padEnd(12, 'x');
  const open = `{ ${head}${body}`.padEnd(bytes - 2, 'y');
  return `${open} }`;
}

export interface FloodPlan {
  /** Distinct documents between `largeBytes[0]` and `largeBytes[1]` bytes, sizes evenly spread. */
  large: number;
  largeBytes: readonly [number, number];
  /** Distinct maximum-size documents. */
  maximum: number;
  clients: number;
  /** An answer later than this, counted from the flood's start, does not count as answered. */
  deadlineMs: number;
}

/** The flood of the issue: 200 documents of 2–5 MB and 200 of maximum size from 8 clients in 60 s. */
export const FULL_FLOOD: FloodPlan = {
  large: 200,
  largeBytes: [2_000_000, 5_000_000],
  maximum: 200,
  clients: 8,
  deadlineMs: 60_000,
};

export interface FloodResult {
  sent: number;
  /** Documents answered (any HTTP status) before the deadline. */
  answered: number;
  /** Answers by HTTP status (including late ones). */
  statuses: Record<string, number>;
  /** Transport failures (reset connections, timeouts): documents never answered. */
  failures: number;
  /** Send-to-answer time of every answered document, ms. */
  answerMs: number[];
  elapsedMs: number;
}

/** The documents in sending order: large and maximum-size ones interleaved. */
export function floodDocuments(plan: FloodPlan): (() => string)[] {
  const large = Array.from({ length: plan.large }, (_, i) => {
    const [low, high] = plan.largeBytes;
    const bytes = plan.large > 1 ? Math.round(low + ((high - low) * i) / (plan.large - 1)) : high;
    return () => largeDocument(i, bytes);
  });
  const maximum = Array.from(
    { length: plan.maximum },
    (_, i) => () => fieldsDocument(plan.large + i, MAXIMUM_DOCUMENT.bytes, MAXIMUM_DOCUMENT.fields),
  );
  const order: (() => string)[] = [];
  for (let i = 0; i < Math.max(large.length, maximum.length); i++) {
    const a = large[i];
    const b = maximum[i];
    if (a) order.push(a);
    if (b) order.push(b);
  }
  return order;
}

function post(agent: Agent, url: URL, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Anonymous clients, each on its own keep-alive connection, post the plan's documents one after
 * another as fast as the core answers (the hostile client's way: no pause between documents),
 * taking the next unsent document in turn.
 */
export async function flood(graphqlUrl: string, plan: FloodPlan): Promise<FloodResult> {
  const url = new URL(graphqlUrl);
  const documents = floodDocuments(plan);
  const result: FloodResult = {
    sent: 0,
    answered: 0,
    statuses: {},
    failures: 0,
    answerMs: [],
    elapsedMs: 0,
  };
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.clients }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = next++; i < documents.length; i = next++) {
          const body = JSON.stringify({ query: documents[i]?.() });
          const sentAt = performance.now();
          result.sent += 1;
          try {
            const status = await post(agent, url, body, plan.deadlineMs);
            const answeredAt = performance.now();
            result.statuses[status] = (result.statuses[status] ?? 0) + 1;
            if (answeredAt - start <= plan.deadlineMs) {
              result.answered += 1;
              result.answerMs.push(answeredAt - sentAt);
            }
          } catch {
            result.failures += 1;
          }
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  result.elapsedMs = performance.now() - start;
  return result;
}

/** Peak resident set (VmHWM) of a process so far, in MB; Linux only. */
export async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** The `p`th percentile (0–100) of some values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}
