// A real `towpath serve` process on free loopback ports with a throw-away data folder, for an
// end-to-end spec file or a browser benchmark.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Running, startNode } from './process.ts';

export interface Core {
  lan: string;
  stop(): Promise<number | null>;
}

export async function startCore(env: Record<string, string> = {}): Promise<Core> {
  const dataDir = await mkdtemp(join(tmpdir(), 'towpath-e2e-'));
  const core: Running = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    ...env,
  });
  const [, url] = await core.waitFor(/Open (http:\/\/[^/]+)\//);
  return {
    lan: url as string,
    stop: async () => {
      core.child.kill('SIGTERM');
      const done = await core.finished;
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
      return done.code;
    },
  };
}
