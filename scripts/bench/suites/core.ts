// The core's own figures: start-up time and /healthz round trips on the LAN door.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../../server/config/index.ts';
import { startWorkstation } from '../../../server/main.ts';
import type { Bench } from '../support/report.ts';

export const bench: Bench = async (report) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'towpath-bench-'));
  const config = loadConfig({ PORT: '0', WINDING_PORT: '0', HOST: '127.0.0.1', TOWPATH_DATA_DIR: dataDir });
  const silent = pino({ level: 'silent' });
  try {
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const ws = await startWorkstation(config, { logger: silent });
      starts.push(performance.now() - t0);
      await ws.stop();
    }
    starts.sort((a, b) => a - b);
    report('core.start.median', 'ms', starts[2] ?? Number.NaN, null);

    const ws = await startWorkstation(config, { logger: silent });
    const requests = 2000;
    const t0 = performance.now();
    for (let i = 0; i < requests; i++) await (await fetch(`${ws.urls.lan}/healthz`)).arrayBuffer();
    report('lan.healthz.sequential', 'requests/s', requests / ((performance.now() - t0) / 1000), null);
    await ws.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};
