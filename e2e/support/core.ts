// A real `towpath serve` on free loopback ports with a throw-away data folder, for one spec file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Running, startNode } from '../../server/testing/process.ts';

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
      await rm(dataDir, { recursive: true, force: true });
      return done.code;
    },
  };
}

/** axe-core inside the page: the serious and critical violations (rule id and first target). */
export const AXE_SCRIPT = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');
