// Stopping `towpath stream` on a real terminal while the controller never acknowledges the line in
// flight: Ctrl-C → prompt, `e` → M112 at the controller, a second Ctrl-C → exit. Three runs each.
// Targets: scripts/bench/README.md.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../engine/machine/clock.ts';
import { attachFakeMarlin } from '../../../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../../server/machine/testing/pty-pair.ts';
import { towpathOnTerminal } from '../../../server/testing/terminal.ts';
import type { Bench } from '../support/report.ts';

const RUNS = 3;

async function once(finish: 'estop' | 'abort') {
  const pair = await createPtyPair();
  const { fake, close } = await attachFakeMarlin(pair.far, {
    react: ({ n, attempt }) =>
      n === 3 && attempt === 1 ? { kind: 'stall', everyMs: 200, text: 'busy: processing' } : undefined,
  });
  const file = join(tmpdir(), `towpath-bench-stop-${process.pid}.gcode`);
  await writeFile(file, Array.from({ length: 10 }, (_, i) => `G0 X${i}`).join('\n'));
  const terminal = towpathOnTerminal(['stream', file, '--port', pair.near, '--timeout', '600']);
  try {
    await fake.until(() => fake.lines.some((line) => line.startsWith('N3 ')), 30_000, 'line 3');
    let started = performance.now();
    terminal.type('\x03');
    await terminal.shows(/Type r to resume/);
    const prompt = performance.now() - started;
    let after: number;
    if (finish === 'estop') {
      // The fake stamps M112 with the system clock (performance.now()), as `started` is.
      started = systemClock.now();
      terminal.type('e');
      await fake.until(() => fake.estopAt !== undefined, 10_000, 'M112');
      after = (fake.estopAt ?? Number.NaN) - started;
      await terminal.exited;
    } else {
      started = performance.now();
      terminal.type('\x03');
      await terminal.exited;
      after = performance.now() - started;
    }
    return { prompt, after };
  } finally {
    terminal.kill();
    await close();
    await pair.dispose();
  }
}

const best = (values: number[]) => Math.min(...values);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export const bench: Bench = async (report) => {
  const prompts: number[] = [];
  const estops: number[] = [];
  const aborts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const e = await once('estop');
    prompts.push(e.prompt);
    estops.push(e.after);
    const a = await once('abort');
    prompts.push(a.prompt);
    aborts.push(a.after);
  }
  report('stream-stop ctrl-c to prompt, line in flight (best)', 'ms', best(prompts), 500);
  report('stream-stop ctrl-c to prompt, line in flight (median)', 'ms', median(prompts), 500);
  report('stream-stop prompt e to M112 at controller (best)', 'ms', best(estops), 20);
  report('stream-stop prompt e to M112 at controller (median)', 'ms', median(estops), 20);
  report('stream-stop second ctrl-c to exit (best)', 'ms', best(aborts), 1000);
  report('stream-stop second ctrl-c to exit (median)', 'ms', median(aborts), 1000);
};
