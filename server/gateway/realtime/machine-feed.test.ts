// The `machine` datasource names the running job (the Winder dashboard's "Job" field), whoever
// started it: a real machine controller on a real pseudo-terminal pair with the fake Marlin.
import { afterEach, describe, expect, it } from 'vitest';
import { MachineController } from '../../machine/process/controller.ts';
import { attachFakeMarlin } from '../../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../machine/testing/pty-pair.ts';
import { eventually } from '../../testing/eventually.ts';
import { MachineFeed, type MachineValue } from './machine-feed.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 1000, identifyIdleMs: 1000, idleTimeoutMs: 2000 };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const program = (count: number) => Array.from({ length: count }, (_, i) => `G1 X${i + 1} F6000`).join('\n');

describe('the machine feed', () => {
  it('carries the job name from the job start to its end, and none before', async () => {
    const pair = await createPtyPair();
    cleanups.push(() => pair.dispose());
    const marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 2 });
    cleanups.push(() => marlin.close());
    const machine = new MachineController({ timings: TIMINGS });
    cleanups.push(() => machine.close());
    const feed = new MachineFeed(machine);
    cleanups.push(async () => feed.close());
    const seen: MachineValue[] = [];
    feed.onChange((value) => seen.push(value));

    await machine.connect(pair.near);
    expect(feed.value.jobName).toBeNull();
    await machine.startJob({ gcode: program(100) }, { name: 'dome.gcode' });
    // The first value that says the job streams already names it.
    const streaming = seen.find((value) => value.jobState === 'streaming');
    expect(streaming?.jobName).toBe('dome.gcode');
    await eventually(() => feed.value.jobState === 'completed');
    expect(feed.value).toMatchObject({ jobName: 'dome.gcode', linesAcknowledged: 100, linesTotal: 100 });

    // A job streamed the CLI's way (the machine door's /stream) is named the same way.
    await machine.stream(
      { commands: [{ command: 'G1 X0', sourceLine: 1 }], total: 1 },
      pair.near,
      undefined,
      undefined,
      { name: 'from-cli.gcode' },
    );
    expect(feed.value).toMatchObject({ jobState: 'completed', jobName: 'from-cli.gcode' });
  });
});
