// The in-process workstation most benchmarks measure: a fresh data dir, every door on a free
// loopback port, a first admin, silent logs; stopped and removed however the benchmark ends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../../server/config.ts';
import { type StartOptions, startWorkstation, type Workstation } from '../../../server/main.ts';

export async function withWorkstation<T>(
  admin: { email: string; password: string },
  env: Record<string, string>,
  work: (ws: Workstation) => Promise<T>,
  options: Omit<StartOptions, 'logger'> = {},
): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), 'towpath-bench-'));
  try {
    const config = loadConfig({
      PORT: '0',
      WINDING_PORT: '0',
      HOST: '127.0.0.1',
      TOWPATH_DATA_DIR: dataDir,
      CREATE_ADMIN: 'true',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ...env,
    });
    const ws = await startWorkstation(config, { ...options, logger: pino({ level: 'silent' }) });
    try {
      return await work(ws);
    } finally {
      await ws.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
