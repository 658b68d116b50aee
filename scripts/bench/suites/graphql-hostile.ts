// A flood of anonymous GraphQL documents against a core in its own process, then the event loop's
// longest stall while maximum-size documents arrive one at a time in process. Figures and targets:
// scripts/bench/README.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { loadConfig } from '../../../server/config/index.ts';
import { startWorkstation } from '../../../server/main.ts';
import {
  FULL_FLOOD,
  fieldsDocument,
  flood,
  MAXIMUM_DOCUMENT,
  peakRssMb,
  percentile,
} from '../../../server/testing/document-flood.ts';
import { startNode } from '../../../server/testing/process.ts';
import type { Bench } from '../support/report.ts';

/** The most the core may hold at its peak under the flood. */
const PEAK_RSS_TARGET_MB = 400;

const maximumDocument = (n: number) => fieldsDocument(n, MAXIMUM_DOCUMENT.bytes, MAXIMUM_DOCUMENT.fields);

async function post(url: string, query: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  await response.arrayBuffer();
  return response.status;
}

export const bench: Bench = async (report) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'towpath-bench-hostile-'));
  try {
    const core = startNode('server/cli.ts', ['serve'], {
      HOST: '127.0.0.1',
      PORT: '0',
      WINDING_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      const [, lan] = await core.waitFor(/is running\. Open (http:\/\/[^/]+)\//);
      const pid = core.child.pid;
      const linux = pid !== undefined && process.platform === 'linux';
      if (linux) report('graphql.flood.core_rss_before', 'MB', await peakRssMb(pid), null);
      const result = await flood(`${lan}/graphql`, FULL_FLOOD);
      const documents = FULL_FLOOD.large + FULL_FLOOD.maximum;
      const refused = Object.entries(result.statuses).filter(
        ([status]) => status !== '200' && status !== '413',
      );
      if (refused.length > 0 || result.failures > 0) {
        throw new Error(
          `document flood: unexpected answers ${JSON.stringify(result.statuses)}, ${result.failures} unanswered`,
        );
      }
      if (linux) report('graphql.flood.core_peak_rss', 'MB', await peakRssMb(pid), PEAK_RSS_TARGET_MB);
      report('graphql.flood.answered_within_60s', 'documents', result.answered, documents);
      report('graphql.flood.answer_p99', 'ms', percentile(result.answerMs, 99), FULL_FLOOD.deadlineMs);
      report('graphql.flood.answer_p50', 'ms', percentile(result.answerMs, 50), null);
      report('graphql.flood.elapsed', 'ms', result.elapsedMs, FULL_FLOOD.deadlineMs);
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
      const documents = Array.from({ length: 20 }, (_, i) => maximumDocument(1000 + i));
      await post(url, maximumDocument(-1)); // warm-up
      const delay = monitorEventLoopDelay({ resolution: 1 });
      const times: number[] = [];
      delay.enable();
      for (const document of documents) {
        const start = performance.now();
        await post(url, document);
        times.push(performance.now() - start);
      }
      delay.disable();
      report('graphql.max_document.answer_p50', 'ms', percentile(times, 50), null);
      report('graphql.max_document.event_loop_stall_max', 'ms', delay.max / 1e6, 20);
      report('graphql.max_document.event_loop_stall_p50', 'ms', delay.percentile(50) / 1e6, null);
    } finally {
      await ws.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};
