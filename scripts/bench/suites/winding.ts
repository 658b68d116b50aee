// The winding door: /validate/from-file and /plan/from-file on the multi_layer reference case,
// beside the engine's in-process time for the same plan. Figures: scripts/bench/README.md.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { planChunks } from '../../../engine/plan/index.ts';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import { loadConfig } from '../../../server/config/index.ts';
import { startWorkstation } from '../../../server/main.ts';
import { readWindDefinition } from '../../../server/winding/input-file.ts';
import { postLoad } from '../support/load.ts';
import type { Bench } from '../support/report.ts';

const CLIENTS = 8;

export const bench: Bench = async (report) => {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-bench-winding-'));
  const input = join(dir, 'multi_layer.wind');
  await copyFile(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'), input);
  const config = loadConfig({
    PORT: '0',
    WINDING_PORT: '0',
    HOST: '127.0.0.1',
    TOWPATH_DATA_DIR: join(dir, 'data'),
  });
  const ws = await startWorkstation(config, { logger: pino({ level: 'silent' }) });
  try {
    // The engine alone: parse nothing, plan the same definition into nothing, best of 10.
    const definition = await readWindDefinition(input);
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const chunks = planChunks(definition);
      while (!chunks.next().done) {}
      best = Math.min(best, performance.now() - t0);
    }
    report('winding.plan.engine', 'ms', best, null);

    const body = JSON.stringify({ path: input });
    for (const route of ['validate', 'plan'] as const) {
      const url = `${ws.urls.winding}/${route}/from-file`;
      const first = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const expected = await first.text();
      if (first.status !== 200) throw new Error(`${route} failed: ${first.status} ${expected}`);
      const result = await postLoad({ url, body, expected, connections: CLIENTS, seconds: 5 });
      report(`winding.${route}.rate`, 'requests/s', result.requests.average, null);
      report(`winding.${route}.p99`, 'ms', result.latency.p99, null);
      if (route === 'plan') {
        // One plan's share of a second at full load, against the engine's own time for it.
        report('winding.plan.http_overhead_ratio', 'ratio', 1000 / result.requests.average / best, null);
      }
    }
  } finally {
    await ws.stop();
    // Requests cut off by the end of the load may still be finishing their writes.
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
};
