// Hostile GraphQL documents (issue 10, item 1): the core's peak RSS while 200 distinct
// maximum-size documents arrive from 8 clients (it once died of an out-of-memory abort at 14 of
// 4.9 MB), and the event loop's longest stall while one maximum-size document is processed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../../server/config.ts';
import { MAX_QUERY_BYTES, MAX_TOKENS } from '../../server/graphql/limits.ts';
import { startWorkstation } from '../../server/main.ts';
import { startNode } from '../../server/testing/process.ts';
import type { Bench } from './report.ts';

const DOCUMENTS = 200;
const CLIENTS = 8;

/**
 * A distinct document at both limits: just under 100,000 bytes and 10,000 tokens, so it is parsed,
 * validated and offered to the cache like any accepted document.
 */
export function maximumDocument(n: number): string {
  const fields = MAX_TOKENS - 2;
  const width = Math.floor((MAX_QUERY_BYTES - 100) / fields) - 1;
  // The first name makes the document distinct; the rest fill it to the limits.
  const names = Array.from({ length: fields }, (_, i) =>
    i === 0 ? `d${n}` : `a${i.toString(36)}`.padEnd(width, 'x'),
  );
  return `{ ${names.join(' ')} }`;
}

async function post(url: string, query: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Peak resident set (VmHWM) of a process, in MB; Linux only. */
async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

export const bench: Bench = async (report) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'towpath-bench-hostile-'));
  try {
    // The core in its own process, so its RSS is its own.
    const core = startNode('server/cli.ts', ['serve'], {
      HOST: '127.0.0.1',
      PORT: '0',
      WINDING_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      const [, lan] = await core.waitFor(/is running\. Open (http:\/\/[^/]+)\//);
      const url = `${lan}/graphql`;
      let next = 0;
      const statuses = new Map<number, number>();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < DOCUMENTS) {
            const status = await post(url, maximumDocument(next++));
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      if ((statuses.get(200) ?? 0) !== DOCUMENTS) {
        throw new Error(`hostile documents: unexpected statuses ${JSON.stringify([...statuses])}`);
      }
      const pid = core.child.pid;
      if (pid !== undefined && process.platform === 'linux') {
        report('graphql.hostile_documents.core_peak_rss', 'MB', await peakRssMb(pid), 500);
      }
    } finally {
      core.child.kill('SIGTERM');
      await core.finished;
    }

    // In-process, to watch the core's event loop: one maximum-size document at a time.
    const ws = await startWorkstation(
      loadConfig({ PORT: '0', WINDING_PORT: '0', HOST: '127.0.0.1', TOWPATH_DATA_DIR: dataDir }),
      { logger: pino({ level: 'silent' }) },
    );
    try {
      const url = `${ws.urls.lan}/graphql`;
      const documents = Array.from({ length: 20 }, (_, i) => maximumDocument(DOCUMENTS + i));
      await post(url, maximumDocument(-1)); // warm-up
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      for (const document of documents) await post(url, document);
      delay.disable();
      report('graphql.max_document.event_loop_stall_max', 'ms', delay.max / 1e6, 20);
      report('graphql.max_document.event_loop_stall_p50', 'ms', delay.percentile(50) / 1e6, null);
    } finally {
      await ws.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};
