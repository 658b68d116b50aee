// Process hygiene of `towpath serve`, with real processes: no orphaned core
// once its parent is gone, a stop that aborts planning and leaves no temporary file, and start-up
// removing what a SIGKILL left behind.
import { spawn } from 'node:child_process';
import { readdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../engine/testing/eventually.ts';
import { processExists } from '../process-exists.ts';
import { REPO_ROOT, type Running, startNode } from '../testing/process.ts';
import { longDefinition } from '../testing/wind.ts';
import { makeTempDir } from '../testing/workstation.ts';

const CLI = 'server/cli.ts';
const RUNNING = /is running\. Open (http:\/\/[^/]+)\/ \(winding door (http:\/\/[^)]+)\)/;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function killLater(pid: number) {
  cleanups.push(() => {
    if (processExists(pid)) process.kill(pid, 'SIGKILL');
  });
}

function serve(env: Record<string, string>): Running {
  const r = startNode(CLI, ['serve'], { HOST: '127.0.0.1', PORT: '0', WINDING_PORT: '0', ...env });
  if (r.child.pid) killLater(r.child.pid);
  return r;
}

// Long enough to be caught in the middle on any machine: several million lines.
const LONG_PLAN = JSON.stringify(
  longDefinition(
    7000,
    Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 35 : 30)),
  ),
);

const temporaries = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.tmp'));

/** Starts a core planning the long definition in `jobs`; resolves once its temporary file exists. */
async function planningCore(jobs: string, dataDir: string) {
  await writeFile(join(jobs, 'long.wind'), LONG_PLAN);
  const core = serve({ WINDING_ALLOWED_ROOTS: jobs, TOWPATH_DATA_DIR: dataDir });
  const [, , winding] = await core.waitFor(RUNNING);
  const answer = fetch(`${winding}/plan/from-file`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: join(jobs, 'long.wind') }),
  }).then(
    (response) => response.status,
    () => 'no answer' as const,
  );
  await eventually(async () => (await temporaries(jobs)).length === 1, 60_000, 50);
  return { core, answer };
}

describe('towpath serve process hygiene', () => {
  it('stops by itself once the process that started it is gone', async () => {
    const dataDir = await makeTempDir();
    // A stand-in for npm: starts the core, reports its pid, and then dies without a word.
    const code = `
      const { spawn } = require('node:child_process');
      const core = spawn(process.execPath, ${JSON.stringify([CLI, 'serve'])}, {
        cwd: ${JSON.stringify(REPO_ROOT)},
        env: { ...process.env, HOST: '127.0.0.1', PORT: '0', WINDING_PORT: '0', TOWPATH_DATA_DIR: ${JSON.stringify(dataDir)} },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      process.stdout.write('core ' + core.pid + '\\n');
      core.stderr.on('data', (chunk) => process.stdout.write(chunk));`;
    const parent = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    parent.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    await eventually(() => RUNNING.test(output), 60_000, 50);
    const corePid = Number(/core (\d+)/.exec(output)?.[1]);
    killLater(corePid);
    const [, lan] = RUNNING.exec(output) ?? [];
    expect((await fetch(`${lan}/healthz`)).status).toBe(200);

    parent.kill('SIGKILL');
    await eventually(() => !processExists(corePid), 60_000, 50);
    await expect(fetch(`${lan}/healthz`)).rejects.toThrow();
  }, 60_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'aborts planning on %s, exits and leaves neither the output nor a temporary file',
    async (signal) => {
      const jobs = await realpath(await makeTempDir());
      const { core, answer } = await planningCore(jobs, await makeTempDir());
      core.child.kill(signal);
      const done = await core.finished;
      expect(done.code).toBe(0);
      expect(await answer).not.toBe(200);
      expect((await readdir(jobs)).sort()).toEqual(['long.wind']);
    },
    60_000,
  );

  it('removes the temporary file of a core killed mid-plan when it starts again', async () => {
    const jobs = await realpath(await makeTempDir());
    const dataDir = await makeTempDir();
    const { core } = await planningCore(jobs, dataDir);
    core.child.kill('SIGKILL');
    await core.finished;
    expect(await temporaries(jobs)).toHaveLength(1);

    const again = serve({ WINDING_ALLOWED_ROOTS: jobs, TOWPATH_DATA_DIR: dataDir });
    await again.waitFor(RUNNING);
    expect((await readdir(jobs)).sort()).toEqual(['long.wind']);
    again.child.kill('SIGTERM');
    const done = await again.finished;
    expect([done.code, done.signal]).toEqual([0, null]);
  }, 60_000);
});
