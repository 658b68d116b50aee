// Start-up of the commands (issue 17 item 1): whole processes from spawn to exit, run the way a
// person or a script runs them (`node server/cli.ts …` from the project root, stdout a pipe), best
// and median of 5 after one warm-up, each beside its target. `towpath plan` of a 700,000-line
// definition also reports its peak RSS (one more run with a measuring hook) and, beside it, the
// reference planner's time for the same lines at its measured throughput (plan.ts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WindDefinition } from '../../engine/wind/types.ts';
import { REFERENCE_ROOT } from '../../server/testing/reference.ts';
import { benchDefinition, REFERENCE_PLANNER_LINES_PER_S } from './plan.ts';
import { type Bench, reportTimes } from './report.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
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
  const hook = pathToFileURL(join(ROOT, 'scripts', 'bench', 'peak-rss-child.ts')).href;
  run([`--import=${hook}`, ...args], { TOWPATH_BENCH_RSS_OUT: out });
  return Number(readFileSync(out, 'utf8')) / 1024;
}

export const bench: Bench = async (report) => {
  // The winding commands run from their bundle while it is fresh (server/cli.ts): build it, so the
  // figures are the built form's whatever was edited since.
  run(['scripts/build-cli.ts']);
  const dir = mkdtempSync(join(tmpdir(), 'towpath-bench-startup-'));
  try {
    const both = (name: string, times: number[], target: number | null) =>
      reportTimes(report, name, times, target);
    // The floor of every figure here: Node starting (and type-stripping) an empty .ts file.
    const empty = join(dir, 'empty.ts');
    writeFileSync(empty, 'export {};\n');
    both('startup.node_empty_ts', timed([empty]), null);
    both('startup.towpath_help', timed(['server/cli.ts', '--help']), 100);

    const small = join(dir, 'simple_cylinder.wind');
    copyFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), small);
    both('startup.towpath_validate.simple_cylinder', timed(['server/cli.ts', 'validate', small]), 150);
    const larger = join(dir, 'multi_layer.wind');
    copyFileSync(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'), larger);
    both('startup.towpath_validate.multi_layer', timed(['server/cli.ts', 'validate', larger]), null);

    const input = join(dir, 'long.wind');
    writeFileSync(input, JSON.stringify(definition700k));
    const plan = ['server/cli.ts', 'plan', input, '-o', join(dir, 'long.gcode'), '--json'];
    const lines = (
      JSON.parse(spawnSync(process.execPath, plan, { cwd: ROOT, encoding: 'utf8' }).stdout) as {
        commands: number;
      }
    ).commands;
    both('startup.towpath_plan_700k', timed(plan), 400);
    report('startup.towpath_plan_700k.lines', 'lines', lines, 700_000);
    report('startup.towpath_plan_700k.peak_rss', 'MiB', peakRssMiB(plan, dir), 120);
    report('startup.reference_planner_700k', 'ms', (lines / REFERENCE_PLANNER_LINES_PER_S) * 1000, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
