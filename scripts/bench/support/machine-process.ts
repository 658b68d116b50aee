// The machine process end to end, run by suites/machine.ts: e-stop → M112 through the door, the
// renderer's button and `towpath estop` with the core idle or loaded, and a job's lines/s against
// the pseudo-terminal's floor. Figures, targets and method: scripts/bench/README.md.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { MACHINE_ROUTES } from '../../../engine/machine/contract.ts';
import type { WindDefinition } from '../../../engine/wind/types.ts';
import { readMachineFile } from '../../../server/machine/process/machine-file.ts';
import { autogroupNice } from '../../../server/testing/nice.ts';
import { REPO_ROOT, startNode } from '../../../server/testing/process.ts';
import { benchDefinition } from './definitions.ts';
import { command, LINES, matchPriority, startFakeProcess, startFloorProcess } from './pty-floor.ts';
import { overallRate, pairedRatios, type Report } from './report.ts';

const TRIES = Number(process.env.BENCH_ESTOP_TRIES ?? 100);
/**
 * `towpath estop` is judged by the difference of two p99s of about 60 ms spawns, which the loaded
 * core (in the benchmark's session, as the spawns are) stretches now and then to 100–190 ms: the
 * p99 of 100 tries is nearly their maximum, and which of the two distributions catches the
 * stretches is chance. Resampling 300 tries under the GraphQL load put the difference's p95 at
 * 28.6 ms for 100 tries and 25.3 ms for 300 (median 13–14 ms either way); under the `.wind`
 * load one run's 100 tries gave 46 ms and the next run's 300 gave −47 ms. So three times the tries.
 */
const CLI_TRIES = 3 * TRIES;
/** While working on one entry point: e.g. BENCH_ESTOP_METHODS=cli,button (default: all three). */
const ONLY_METHODS = process.env.BENCH_ESTOP_METHODS?.split(',');
/** And one load: e.g. BENCH_ESTOP_LOADS=graphql,plan (default: all four). */
const ONLY_LOADS = process.env.BENCH_ESTOP_LOADS?.split(',');
const JOB = Array.from({ length: 5000 }, (_, i) => `G0 X${(i * 0.1).toFixed(3)} A${(i * 7) % 360} B0`).join(
  '\n',
);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WIND_BYTES = 60 * 1024 * 1024;
/**
 * Measured rounds of the streaming figures (after one warm-up round, about a second a round); see
 * pairedRatios. Idle, one round's ratio ranges from about 0.7 to 1.35, and resampling the rounds of
 * one 50-round run gives its figure a standard deviation of 0.017. Under load a round trip's rate
 * swings between about 4,000 and 30,000 lines/s from one round to the next, one round's ratio from
 * 0.2 to 6.7, and the figure is a total time over the rounds, so a few slow rounds weigh heavily:
 * resampling a 50-round run gives a standard deviation of 0.08, as its spread over nine runs
 * (0.85 to 1.10) shows, and 200 rounds 0.04, for about 150 s more.
 */
const IDLE_ROUNDS = 50;
const LOADED_ROUNDS = 200;

type Method = 'door' | 'button' | 'cli';
type LoadName = 'idle' | 'graphql' | 'wind' | 'plan';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** A valid definition of at least 60 MiB: short hoop layers (well under the 50-million-line limit). */
async function writeBigWind(path: string) {
  const layer = '{"windType": "hoop", "terminal": false}';
  const short = {
    ...benchDefinition,
    mandrelParameters: { diameter: 70, windLength: 10, endDiameter: null },
  };
  const head = JSON.stringify({ ...short, layers: [] }).replace('"layers":[]}', '"layers": [');
  const count = Math.ceil((WIND_BYTES - head.length) / (layer.length + 2));
  const file = await open(path, 'w');
  await file.write(head);
  const block = Array.from({ length: 10_000 }, () => layer).join(', ');
  for (let written = 0; written < count; written += 10_000)
    await file.write(written === 0 ? block : `, ${block}`);
  await file.write(']}\n');
  await file.close();
}

/** About ten million lines: the plan benchmark's definition, ten times as long. */
const tenMillionLines: WindDefinition = {
  ...benchDefinition,
  mandrelParameters: { ...benchDefinition.mandrelParameters, windLength: 70_000 },
};

/** Keeps the core busy from a process of its own (core-load-child.ts) until the returned stop. */
async function busyCore(kind: Exclude<LoadName, 'idle'>, url: string, path?: string) {
  const load = startNode('scripts/bench/support/core-load-child.ts', [kind, url, ...(path ? [path] : [])]);
  await load.waitFor(/busy/);
  return async () => {
    load.child.kill('SIGTERM');
    await load.finished;
  };
}

export async function machineProcessBench(report: Report) {
  // `towpath estop` and the machine process run from their bundles while fresh: build them, so the
  // figures are the built form's whatever was edited since.
  spawnSync(process.execPath, ['scripts/build-cli.ts'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const dir = await mkdtemp(join(tmpdir(), 'towpath-bench-machine-'));
  const core = startNode('server/testing/serve.ts', [], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: join(dir, 'data'),
    WINDING_ALLOWED_ROOTS: dir,
    LOG_LEVEL: 'silent',
    TOWPATH_TEST_MACHINE_TIMINGS: JSON.stringify({ bootIdleMs: 20 }),
  });
  const browser = existsSync(join(REPO_ROOT, 'dist/renderer/index.html'))
    ? await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-gpu', '--no-first-run'] })
    : undefined;
  try {
    const [, lan, machine] = (await core.waitFor(/listening (\S+) (\S+)/)) as [string, string, string];
    const winding = (await (await fetch(`${lan}/api/doors`)).json()).winding.url as string;
    const bigWind = join(dir, 'big.wind');
    await writeBigWind(bigWind);
    const longJob = join(dir, 'ten-million.wind');
    await writeFile(longJob, JSON.stringify(tenMillionLines));
    const empty = join(dir, 'empty.mjs');
    await writeFile(empty, 'export {};\n');
    const validated = await post(`${winding}/validate/from-file`, { path: bigWind });
    if (validated.status !== 200)
      throw new Error(`the 60 MiB .wind did not validate: ${await validated.text()}`);

    const loads: Record<LoadName, () => Promise<() => Promise<void>>> = {
      idle: async () => async () => {},
      graphql: () => busyCore('graphql', lan),
      wind: () => busyCore('wind', winding, bigWind),
      plan: () => busyCore('plan', winding, longJob),
    };

    const page = browser ? await browser.newPage() : undefined;
    await page?.goto(`${lan}/`);
    // When the press reached the page, on the same clock as the controller's: the button's latency
    // without Playwright's own path (bench process → DevTools protocol → browser) in front of it.
    await page?.evaluate(() =>
      addEventListener(
        'pointerdown',
        (event) => {
          (window as { pressedAt?: number }).pressedAt = performance.timeOrigin + event.timeStamp;
        },
        true,
      ),
    );
    const button = page?.getByRole('button', { name: 'Emergency stop' });

    const spawnEmpty = () =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        spawn(process.execPath, [empty], { stdio: 'ignore' }).once('exit', () =>
          resolve(performance.now() - started),
        );
      });

    /**
     * One e-stop with a job streaming to a fake Marlin in its own process (estop-marlin-child.ts);
     * ms from the call to M112 at the far end, both read on the shared clock. For the CLI,
     * `baseline` first takes one spawn of the empty module under the same job, so the two spawns
     * compete with the same streaming for the two cores; for the button, `fromEvent` takes the ms
     * from the press event in the page to M112.
     */
    const oneTry = async (method: Method, baseline?: number[], fromEvent?: number[]): Promise<number> => {
      // In a session of its own, as startFakeProcess's: a controller is a computer of its own, and in
      // the benchmark's session its answers to the streaming job would take the CPU share that the
      // `towpath estop` process spawned there needs (at nice 0, so it sees M112 no sooner).
      const controller = startNode('scripts/bench/support/estop-marlin-child.ts', [], {}, { detached: true });
      let child: ChildProcess | undefined;
      try {
        const [, port] = (await controller.waitFor(/port (\S+)/)) as [string, string];
        const connected = await post(`${machine}${MACHINE_ROUTES.connect}`, { port });
        if (!connected.ok) throw new Error(`connect failed: ${await connected.text()}`);
        if ((await post(`${machine}${MACHINE_ROUTES.job}`, { gcode: JOB })).status !== 202)
          throw new Error('the job did not start');
        await controller.waitFor(/streaming/);
        if (method === 'cli') baseline?.push(await spawnEmpty());
        // The button's place is known before the clock starts: the press is one mouse event.
        const box = method === 'button' ? await button?.boundingBox({ timeout: 60_000 }) : undefined;
        const calledAt = performance.timeOrigin + performance.now();
        if (method === 'door') void post(`${machine}${MACHINE_ROUTES.estop}`, {});
        else if (method === 'button' && box)
          void page?.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        else
          child = spawn(process.execPath, [join(REPO_ROOT, 'bin/towpath.mjs'), 'estop'], {
            env: { TOWPATH_DATA_DIR: join(dir, 'data') },
            stdio: 'ignore',
          });
        const [, at] = (await controller.waitFor(/m112 (\S+)/)) as [string, string];
        if (method === 'button' && page)
          fromEvent?.push(
            Number(at) - (await page.evaluate(() => (window as { pressedAt?: number }).pressedAt ?? 0)),
          );
        return Number(at) - calledAt;
      } finally {
        if (child && child.exitCode === null) await new Promise((resolve) => child?.once('exit', resolve));
        controller.child.kill('SIGTERM');
        await controller.finished;
      }
    };

    const loadNames = (['idle', 'graphql', 'wind', 'plan'] as LoadName[]).filter(
      (name) => !ONLY_LOADS || ONLY_LOADS.includes(name),
    );
    for (const name of loadNames) {
      const stop = await loads[name]();
      try {
        const methods = (button ? ['door', 'button', 'cli'] : ['door', 'cli']).filter(
          (method) => !ONLY_METHODS || ONLY_METHODS.includes(method),
        ) as Method[];
        for (const method of methods) {
          const latencies: number[] = [];
          const baseline: number[] = [];
          const fromEvent: number[] = [];
          for (let i = 0; i < (method === 'cli' ? CLI_TRIES : TRIES); i++) {
            latencies.push(await oneTry(method, baseline, fromEvent));
          }
          latencies.sort((a, b) => a - b);
          const key = `machine.estop.${name}.${method}`;
          const limits = method === 'cli' ? [null, null] : [20, 50];
          report(`${key}.median`, 'ms', quantile(latencies, 0.5), null);
          report(`${key}.p99`, 'ms', quantile(latencies, 0.99), limits[0] ?? null);
          report(`${key}.max`, 'ms', latencies.at(-1) ?? Number.NaN, limits[1] ?? null);
          if (method === 'button') {
            fromEvent.sort((a, b) => a - b);
            report(`${key}.from_press_event.median`, 'ms', quantile(fromEvent, 0.5), null);
            report(`${key}.from_press_event.p99`, 'ms', quantile(fromEvent, 0.99), 20);
            report(`${key}.from_press_event.max`, 'ms', fromEvent.at(-1) ?? Number.NaN, 50);
          }
          if (method === 'cli') {
            baseline.sort((a, b) => a - b);
            report(`machine.estop.${name}.empty_module_spawn.median`, 'ms', quantile(baseline, 0.5), null);
            report(`machine.estop.${name}.empty_module_spawn.p99`, 'ms', quantile(baseline, 0.99), null);
            report(
              `machine.estop.${name}.cli_minus_empty.p99`,
              'ms',
              quantile(latencies, 0.99) - quantile(baseline, 0.99),
              30,
            );
          }
        }
      } finally {
        await stop();
      }
    }
    await page?.close();
    const machinePid = (await readMachineFile(join(dir, 'data')))?.pid;
    if (!machinePid) throw new Error('no machine.json in the data dir: where is the machine process?');
    await streamUnderLoad(report, machine, loads, { core: core.child.pid, machine: machinePid });
  } finally {
    await browser?.close();
    core.child.kill('SIGTERM');
    await core.finished;
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** CPU-seconds a process has used (user and system, all its threads) from /proc; NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * lines/s of a job through the machine process ÷ the PTY floor, in paired rounds (pairedRatios),
 * first with the core idle, then with the core parsing GraphQL and planning through every round
 * (started once: a load started for each round would put every job in its ramp-up). The floor
 * runs in a process and session of its own, as the machine process does, and is measured with it:
 * under load a round trip's rate switches for seconds at a time between about the idle rate and
 * nearly twice it (the wake-ups a round trip needs find CPUs kept awake, or wait for busy ones), so
 * each figure is the run's overall rate (overallRate) ÷ the floor's over the same rounds, and the
 * loaded job against the idle floor is reported beside it without a target.
 */
async function streamUnderLoad(
  report: Report,
  machine: string,
  loads: Record<LoadName, () => Promise<() => Promise<void>>>,
  pids: { core: number | undefined; machine: number },
) {
  const corePid = pids.core;
  const fake = await startFakeProcess();
  const floor = await startFloorProcess(fake.path);
  try {
    // The machine process runs at MACHINE_NICE (priority.ts). The floor gets the same priority, so
    // that the ratio is the host's alone; the fake Marlin too, as the controller is a computer of
    // its own, whose answers the workstation's load does not slow.
    for (const peer of [floor.pid, fake.pid]) matchPriority(peer, pids.machine);
    report(
      'machine.process.stream.machine_autogroup_nice',
      'nice',
      autogroupNice(pids.machine) ?? Number.NaN,
      null,
    );
    const gcode = Array.from({ length: LINES }, (_, i) => command(i + 1)).join('\n');
    /**
     * One job through the machine process, in lines/s on its own clock (the answer's `elapsed_s`,
     * from the job's start to its last acknowledgement), as the floor is timed by its own process;
     * `answered` gets the rate from the request to the answer, which adds the body's upload and the
     * benchmark process's own wake-ups (in the core's session, under its load). It connects first,
     * so neither figure has the handshake (the stream route uses the open connection); the floor
     * needs the port to itself, so it disconnects after.
     */
    const job = async (answered: number[]) => {
      const connected = await post(`${machine}${MACHINE_ROUTES.connect}`, { port: fake.path });
      if (!connected.ok) throw new Error(`connect failed: ${await connected.text()}`);
      try {
        const started = performance.now();
        const response = await post(`${machine}${MACHINE_ROUTES.stream}`, { gcode, port: fake.path });
        const result = (await response.json()) as { status: string; elapsed_s: number };
        if (result.status !== 'completed') throw new Error(`the job ended ${result.status}`);
        answered.push(LINES / ((performance.now() - started) / 1000));
        return LINES / result.elapsed_s;
      } finally {
        await post(`${machine}${MACHINE_ROUTES.disconnect}`, {});
      }
    };
    const phase = async (rounds: number) => {
      const answered: number[] = [];
      const cpuBefore = { machine: cpuSeconds(pids.machine), floor: cpuSeconds(floor.pid) };
      const { ratios, rates } = await pairedRatios(
        rounds,
        { floor: () => floor.measure(LINES), job: () => job(answered) },
        'floor',
      );
      // Each side's CPU per line over the phase's rounds (with the warm-up; the machine process's
      // includes each job's HTTP and connect): over 150,000 lines or more the clock tick's 10 ms
      // hardly counts, it moves less than the rates, and it is the first place to look when a
      // ratio moves (a host doing more per line, or less CPU to do it on).
      const lines = (rounds + 1) * LINES;
      const cpuPerLine = (pid: number, before: number) => ((cpuSeconds(pid) - before) / lines) * 1e6;
      return {
        machineCpu: cpuPerLine(pids.machine, cpuBefore.machine),
        floorCpu: cpuPerLine(floor.pid, cpuBefore.floor),
        ratios: ratios.job,
        floor: overallRate(rates.floor),
        job: overallRate(rates.job),
        // Without the warm-up round's, as pairedRatios leaves it out of `rates`.
        answered: overallRate(answered.slice(1)),
      };
    };
    const idle = await phase(IDLE_ROUNDS);
    const stops = await Promise.all([loads.graphql(), loads.plan()]);
    let loaded: Awaited<ReturnType<typeof phase>>;
    const coreCpu = cpuSeconds(corePid);
    const started = performance.now();
    try {
      loaded = await phase(LOADED_ROUNDS);
      // Evidence that the core was busy all along: its CPU-seconds per second of the loaded rounds.
      report(
        'machine.process.stream.core_cpu_loaded',
        'cpu/s',
        (cpuSeconds(corePid) - coreCpu) / ((performance.now() - started) / 1000),
        null,
      );
      // And the weight it competed with: the machine process, the floor and the fake Marlin each
      // lead a session, so each is an autogroup of its own, and the autogroup nices of their
      // sessions and of the core's (not their threads' nice) decide how soon they get a CPU back
      // from it. The core's session is the benchmark's: one left at another nice than 0
      // (`/proc/<pid>/autogroup`) changes the loaded figures, so say so beside the machine's.
      report(
        'machine.process.stream.core_autogroup_nice',
        'nice',
        (corePid && autogroupNice(corePid)) ?? Number.NaN,
        null,
      );
    } finally {
      await Promise.all(stops.map((stop) => stop()));
    }
    for (const [name, { ratios, floor, job, answered, machineCpu, floorCpu }] of [
      ['idle', idle],
      ['loaded', loaded],
    ] as const) {
      report(`machine.process.stream.${name}_to_floor`, 'ratio', job / floor, 0.9);
      report(`machine.process.stream.${name}_to_floor.lowest`, 'ratio', Math.min(...ratios), null);
      report(`machine.process.stream.${name}_to_floor.highest`, 'ratio', Math.max(...ratios), null);
      report(`machine.process.stream.floor_${name}`, 'lines/s', floor, null);
      report(`machine.process.stream.${name}_request_to_answer_to_floor`, 'ratio', answered / floor, null);
      report(`machine.process.stream.${name}_machine_cpu_per_line`, 'us', machineCpu, null);
      report(`machine.process.stream.${name}_floor_cpu_per_line`, 'us', floorCpu, null);
    }
    report('machine.process.stream.loaded_to_idle_floor', 'ratio', loaded.job / idle.floor, null);
  } finally {
    await floor.stop();
    await fake.stop();
  }
}
