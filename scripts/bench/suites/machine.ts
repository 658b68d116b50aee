// Machine streaming over a socat pseudo-terminal pair (spec/winding.md §6.6): the host against the
// link's round-trip floor, e-stop latency and CPU per line; then the machine process end to end
// with the core under load (support/machine-process.ts). Method: scripts/bench/README.md.
import { prepareProgram } from '../../../engine/machine/program.ts';
import { MachineController } from '../../../server/machine/process/controller.ts';
import { attachFakeMarlin } from '../../../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../../server/machine/testing/pty-pair.ts';
import { machineProcessBench } from '../support/machine-process.ts';
import { command, LINES, roundTripFloor, startFakeProcess } from '../support/pty-floor.ts';
import { type Bench, median, pairedRatios } from '../support/report.ts';

/** Measured rounds of the streaming figures (after one warm-up round); see pairedRatios. */
const ROUNDS = 9;
const ESTOP_TRIES = 50;
const TIMINGS = { bootIdleMs: 20 };

async function hostRate(
  path: string,
  lines: number,
): Promise<{ linesPerSecond: number; cpuUsPerLine: number }> {
  const machine = new MachineController({ timings: TIMINGS });
  try {
    await machine.connect(path);
    const program = prepareProgram(Array.from({ length: lines }, (_, i) => command(i + 1)).join('\n'));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const outcome = await machine.stream(program, path);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    if (outcome.status !== 'completed') throw new Error(`the benchmark job ended ${outcome.status}`);
    return { linesPerSecond: lines / seconds, cpuUsPerLine: (used.user + used.system) / lines };
  } finally {
    await machine.close();
  }
}

/** Call → M112 received by the fake on the far end of the pty (so an upper bound of call → wire). */
async function estopLatencies(tries: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < tries; i++) {
    // The host closes its end after an emergency stop, which ends socat: a fresh pair each time.
    const pair = await createPtyPair();
    try {
      const { fake, close } = await attachFakeMarlin(pair.far);
      const machine = new MachineController({ timings: TIMINGS });
      try {
        await machine.connect(pair.near);
        await machine.startJob({ gcode: Array.from({ length: 5000 }, (_, n) => command(n + 1)).join('\n') });
        await fake.until(() => fake.commands.length >= 100 + (i % 7) * 13, 10_000);
        const calledAt = performance.now();
        machine.emergencyStop();
        await fake.until(() => fake.estopAt !== undefined, 2000, 'M112');
        latencies.push((fake.estopAt as number) - calledAt);
      } finally {
        await machine.close();
        await close();
      }
    } finally {
      await pair.dispose();
    }
  }
  return latencies.sort((a, b) => a - b);
}

export const bench: Bench = async (report) => {
  const fake = await startFakeProcess();
  try {
    // Warm both paths once so JIT and first-open costs do not land in either figure.
    await roundTripFloor(fake.path, 200);
    await hostRate(fake.path, 200);
    const cpu: number[] = [];
    const { ratios, rates } = await pairedRatios(
      ROUNDS,
      {
        floor: () => roundTripFloor(fake.path, LINES),
        host: async () => {
          const run = await hostRate(fake.path, LINES);
          cpu.push(run.cpuUsPerLine);
          return run.linesPerSecond;
        },
      },
      'floor',
    );
    report('machine.stream.floor', 'lines/s', Math.max(...rates.floor), null);
    report('machine.stream.host', 'lines/s', Math.max(...rates.host), null);
    report('machine.stream.host_to_floor', 'ratio', median(ratios.host), 0.9);
    report('machine.stream.host_cpu_per_line', 'us', median(cpu), null);
  } finally {
    await fake.stop();
  }
  const latencies = await estopLatencies(ESTOP_TRIES);
  report('machine.estop.median', 'ms', latencies[Math.floor(latencies.length / 2)] ?? Number.NaN, 20);
  report('machine.estop.max', 'ms', latencies.at(-1) ?? Number.NaN, 20);
  await machineProcessBench(report);
};
