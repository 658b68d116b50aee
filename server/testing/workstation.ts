// A real workstation on free loopback ports with a throw-away data dir: the one way tests and
// benchmarks start a core in process.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { onTestFinished } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { type StartOptions, startWorkstation, type Workstation } from '../main.ts';
import { TEST_ARGON2_COST } from './argon2.ts';

export interface TestWorkstation extends Workstation {
  root: string;
  /** Stops the workstation and removes its folders. */
  dispose(): Promise<void>;
}

export const TEST_INDEX_HTML = '<!doctype html><title>Towpath test renderer</title><div id="root"></div>';

/**
 * Removes a test's folder. Retried: a machine process the test's core started may still be writing
 * its event log there for a moment after the core stopped, and a plain recursive rm then fails with
 * ENOTEMPTY.
 */
export function removeTempDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/** A fresh folder under the OS temp dir, removed when the current test finishes. */
export async function makeTempDir(prefix = 'towpath-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => removeTempDir(dir));
  return dir;
}

export interface TestWorkstationOptions {
  /** Reuse a folder (and so a data dir) of an earlier test workstation, e.g. to test a restart. */
  root?: string;
  dashboardApi?: StartOptions['dashboardApi'];
  machine?: StartOptions['machine'];
  httpTimeouts?: StartOptions['httpTimeouts'];
  /** Where the workstation logs; silent by default. */
  logger?: StartOptions['logger'];
  /** Hash at the spec's Argon2id cost, as benchmarks measure it, instead of the tests' cheap one. */
  specArgon2?: boolean;
}

/** Starts a workstation whose renderer folder holds a stand-in index.html and one asset. */
export async function startTestWorkstation(
  env: Record<string, string> = {},
  options: TestWorkstationOptions = {},
): Promise<TestWorkstation> {
  // Not makeTempDir: a workstation may be started in beforeAll; dispose() removes the folder.
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'towpath-test-')));
  const rendererDir = join(root, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), TEST_INDEX_HTML);
  await writeFile(join(rendererDir, 'assets', 'app-1234.js'), 'console.log("towpath")');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: join(root, 'data'),
    ...env,
  });
  const workstation = await startWorkstation(
    { ...config, rendererDir },
    {
      logger: options.logger ?? pino({ level: 'silent' }),
      dashboardApi: {
        ...(options.specArgon2 ? {} : { argon2Cost: TEST_ARGON2_COST }),
        ...options.dashboardApi,
      },
      machine: options.machine,
      httpTimeouts: options.httpTimeouts,
    },
  );
  return {
    ...workstation,
    root,
    dispose: async () => {
      await workstation.stop();
      if (!options.root) await removeTempDir(root);
    },
  };
}

/**
 * Runs `work` on a workstation whose first admin is `admin`, then stops it and removes its folders
 * however `work` ends: for benchmarks, which have no test to hang the clean-up on. Passwords are
 * hashed at the spec's cost unless `options.dashboardApi` says otherwise.
 */
export async function withWorkstation<T>(
  admin: { email: string; password: string },
  env: Record<string, string>,
  work: (ws: TestWorkstation) => Promise<T>,
  options: Omit<TestWorkstationOptions, 'logger' | 'specArgon2'> = {},
): Promise<T> {
  const ws = await startTestWorkstation(
    { CREATE_ADMIN: 'true', ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ...env },
    { ...options, specArgon2: true },
  );
  try {
    return await work(ws);
  } finally {
    await ws.dispose();
  }
}
