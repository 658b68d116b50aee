// Start-up of the commands, as whole processes from spawn to exit beside Node starting an empty
// module, `towpath plan` of 700,000 lines with its peak RSS, and the core's own start: fork → the
// machine process's door listening, `towpath serve` spawn → /healthz 200. Figures, targets and
// method: scripts/bench/README.md.
import { fork, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WindDefinition } from '../../../engine/wind/types.ts';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import { readMachineFile } from '../../../server/machine/process/machine-file.ts';
import { processExists } from '../../../server/process-exists.ts';
import { freePort } from '../../../server/testing/free-port.ts';
import { benchDefinition, REFERENCE_PLANNER_LINES_PER_S } from '../support/definitions.ts';
import { type Bench, bestAndMedian, reportTimes } from '../support/report.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUNS = 5;

/** The plan benchmark's layers on a shorter mandrel: 700,755 lines. */
const definition700k: WindDefinition = {
  ...benchDefinition,
  mandrelParameters: { ...benchDefinition.mandrelParameters, windLength: 4320 },
};

function run(args: string[], env: Record<string, string> = {}): number {
  const t0 = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = performance.now() - t0;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return ms;
}

/** Wall times of RUNS runs after one warm-up. */
function timed(args: string[]): number[] {
  run(args);
  return Array.from({ length: RUNS }, () => run(args));
}

function peakRssMiB(args: string[], dir: string): number {
  const out = join(dir, 'rss.txt');
  const hook = pathToFileURL(join(ROOT, 'scripts', 'bench', 'support', 'peak-rss-child.ts')).href;
  run([`--import=${hook}`, ...args], { TOWPATH_BENCH_RSS_OUT: out });
  return Number(readFileSync(out, 'utf8')) / 1024;
}

const TOWPATH = 'bin/towpath.mjs';

/** The machine process's start on an idle machine, fork → door listening (ms). */
const MACHINE_START_TARGET_MS = 500;

/** ms from fork to the machine process's `ready` (its door listens and machine.json is written). */
async function machineStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = fork(join(ROOT, 'dist', 'cli', 'machine.mjs'), [], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    execArgv: [],
    env: { PATH: process.env.PATH, TOWPATH_DATA_DIR: dataDir, MACHINE_PORT: '0', LOG_LEVEL: 'warn' },
  });
  const message = await new Promise<{ type?: string }>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the machine process exited (${code})`)));
  });
  const ms = performance.now() - started;
  if (message.type !== 'ready')
    throw new Error(`the machine process did not start: ${JSON.stringify(message)}`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

/**
 * ms from spawning `towpath serve` on an existing data dir to its LAN door's /healthz answering 200
 * (polled every 5 ms); then stops it and waits until its machine process has gone too.
 */
async function coreStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const core = spawn(process.execPath, [TOWPATH, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      WINDING_PORT: '0',
      MACHINE_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (core.exitCode !== null) throw new Error(`towpath serve exited (${core.exitCode})`);
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const machine = await readMachineFile(dataDir);
    const exited = new Promise((resolve) => core.once('exit', resolve));
    core.kill('SIGTERM');
    await exited;
    while (machine && processExists(machine.pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Times of RUNS runs after one warm-up, of an asynchronous run. */
async function timedAsync(run: () => Promise<number>): Promise<number[]> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await run());
  return times;
}

export const bench: Bench = async (report) => {
  // The commands and the machine process run from their bundles while fresh (bin/towpath.mjs): build
  // them, so the figures are the built form's whatever was edited since.
  run(['scripts/build-cli.ts']);
  const dir = mkdtempSync(join(tmpdir(), 'towpath-bench-startup-'));
  try {
    const both = (name: string, times: number[], target: number | null) =>
      reportTimes(report, name, times, target);
    // The base of the targets: Node starting an empty JavaScript module.
    const empty = join(dir, 'empty.mjs');
    writeFileSync(empty, 'export {};\n');
    const baseTimes = timed([empty]);
    both('startup.node_empty_mjs', baseTimes, null);
    const base = bestAndMedian(baseTimes).best;
    /** Best and median beside base + allowance, and the best's excess over the base beside the allowance. */
    const overBase = (name: string, times: number[], allowance: number) => {
      both(name, times, base + allowance);
      report(`${name}.over_base`, 'ms', bestAndMedian(times).best - base, allowance);
    };
    overBase('startup.towpath_help', timed([TOWPATH, '--help']), 30);

    const small = join(dir, 'simple_cylinder.wind');
    copyFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), small);
    overBase('startup.towpath_validate.simple_cylinder', timed([TOWPATH, 'validate', small]), 80);
    const larger = join(dir, 'multi_layer.wind');
    copyFileSync(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'), larger);
    both('startup.towpath_validate.multi_layer', timed([TOWPATH, 'validate', larger]), null);

    const input = join(dir, 'long.wind');
    writeFileSync(input, JSON.stringify(definition700k));
    const plan = [TOWPATH, 'plan', input, '-o', join(dir, 'long.gcode'), '--json'];
    const lines = (
      JSON.parse(spawnSync(process.execPath, plan, { cwd: ROOT, encoding: 'utf8' }).stdout) as {
        commands: number;
      }
    ).commands;
    both('startup.towpath_plan_700k', timed(plan), 300);
    report('startup.towpath_plan_700k.lines', 'lines', lines, 700_000);
    report('startup.towpath_plan_700k.peak_rss', 'MiB', peakRssMiB(plan, dir), 120);
    report('startup.reference_planner_700k', 'ms', (lines / REFERENCE_PLANNER_LINES_PER_S) * 1000, null);

    const machineDir = join(dir, 'machine-data');
    mkdirSync(machineDir, { mode: 0o700 });
    both(
      'startup.machine_process.fork_to_listening',
      await timedAsync(() => machineStart(machineDir)),
      MACHINE_START_TARGET_MS,
    );
    const coreDir = join(dir, 'core-data');
    both('startup.core.spawn_to_healthz_200', await timedAsync(() => coreStart(coreDir)), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
