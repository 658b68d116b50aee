// `npm run bench`: one JSON line per figure ({name, unit, value, reference}), comparable run to run.
// `reference` is the figure a benchmark is compared with, or null where there is none yet.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../server/config.ts';
import { startWorkstation } from '../server/main.ts';

function report(name: string, unit: string, value: number, reference: number | null = null) {
  console.log(JSON.stringify({ name, unit, value: Number(value.toFixed(3)), reference }));
}

const dataDir = await mkdtemp(join(tmpdir(), 'towpath-bench-'));
const config = loadConfig({ PORT: '0', WINDING_PORT: '0', HOST: '127.0.0.1', TOWPATH_DATA_DIR: dataDir });
const silent = pino({ level: 'silent' });

// Core start-up: from the call to both doors listening.
const starts: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const ws = await startWorkstation(config, { logger: silent });
  starts.push(performance.now() - t0);
  await ws.stop();
}
starts.sort((a, b) => a - b);
report('core.start.median', 'ms', starts[2] ?? Number.NaN);

// /healthz round trips on the LAN door, sequential, over keep-alive.
const ws = await startWorkstation(config, { logger: silent });
const requests = 2000;
const t0 = performance.now();
for (let i = 0; i < requests; i++) await (await fetch(`${ws.urls.lan}/healthz`)).arrayBuffer();
report('lan.healthz.sequential', 'requests/s', requests / ((performance.now() - t0) / 1000));
await ws.stop();
await rm(dataDir, { recursive: true, force: true });
