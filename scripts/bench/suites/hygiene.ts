// Process hygiene of `towpath serve`: how soon the core exits after SIGTERM in the middle of a
// multi-million-line plan, and after the process that started it dies. Targets:
// scripts/bench/README.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../../../engine/testing/eventually.ts';
import { processExists } from '../../../server/process-exists.ts';
import { benchDefinition } from '../support/definitions.ts';
import type { Bench } from '../support/report.ts';

/** Linux: the process has exited and only its exit status is left (state Z in /proc). */
function isZombie(pid: number): boolean {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ' '));
  } catch {
    return false;
  }
}

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUNNING = /is running\. Open (http:\/\/[^/]+)\/ \(winding door (http:\/\/[^)]+)\)/;

function output(child: ChildProcess, stream: 'stdout' | 'stderr'): () => string {
  let text = '';
  child[stream]?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  return () => text;
}

export const bench: Bench = async (report) => {
  const dir = mkdtempSync(join(tmpdir(), 'towpath-bench-hygiene-'));
  const env = { ...process.env, HOST: '127.0.0.1', PORT: '0', WINDING_PORT: '0', LOG_LEVEL: 'warn' };
  try {
    // SIGTERM mid-plan: from the signal to the process's exit.
    const jobs = join(dir, 'jobs');
    const long = {
      ...benchDefinition,
      layers: Array.from({ length: 12 }, () => benchDefinition.layers).flat(),
    };
    mkdirSync(jobs);
    writeFileSync(join(jobs, 'long.wind'), JSON.stringify(long));
    const core = spawn(process.execPath, ['server/cli.ts', 'serve'], {
      cwd: REPO_ROOT,
      env: { ...env, TOWPATH_DATA_DIR: join(dir, 'data'), WINDING_ALLOWED_ROOTS: jobs },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stderr = output(core, 'stderr');
    const exited = new Promise<number>((resolve) => core.once('exit', () => resolve(performance.now())));
    await eventually(() => RUNNING.test(stderr()), 60_000);
    const winding = RUNNING.exec(stderr())?.[2];
    void fetch(`${winding}/plan/from-file`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: join(jobs, 'long.wind') }),
    }).catch(() => {});
    await eventually(() => readdirSync(jobs).some((name) => name.endsWith('.tmp')), 60_000);
    const signalled = performance.now();
    core.kill('SIGTERM');
    report('serve.exit_after_sigterm_mid_plan', 'ms', (await exited) - signalled, 2000);
    report(
      'serve.temporary_files_left',
      'files',
      readdirSync(jobs).filter((n) => n.endsWith('.tmp')).length,
      0,
    );

    // The parent dies: from its death to the core's exit (polled every 10 ms).
    const code = `
      const { spawn } = require('node:child_process');
      const core = spawn(process.execPath, ['server/cli.ts', 'serve'], {
        cwd: ${JSON.stringify(REPO_ROOT)},
        env: { ...process.env, TOWPATH_DATA_DIR: ${JSON.stringify(join(dir, 'data2'))} },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      process.stdout.write('core ' + core.pid + '\\n');
      core.stderr.on('data', (chunk) => process.stdout.write(chunk));`;
    const parent = spawn(process.execPath, ['-e', code], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const parentOut = output(parent, 'stdout');
    await eventually(() => RUNNING.test(parentOut()), 60_000);
    const corePid = Number(/core (\d+)/.exec(parentOut())?.[1]);
    const killed = performance.now();
    parent.kill('SIGKILL');
    // Exited means running no more: an orphan's exit status waits for init to collect it (here
    // the sandbox's init reaps every second or two), and a zombie still answers kill(pid, 0).
    await eventually(() => !processExists(corePid) || isZombie(corePid), 60_000);
    report('serve.exit_after_parent_death', 'ms', performance.now() - killed, 2000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
