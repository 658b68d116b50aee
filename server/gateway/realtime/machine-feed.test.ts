// The `machine` datasource names the running job (the Winder dashboard's "Job" field), whoever
// started it: a real machine controller on a real pseudo-terminal pair with the fake Marlin.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../engine/testing/eventually.ts';
import { MachineController } from '../../machine/process/controller.ts';
import { attachFakeMarlin } from '../../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../../machine/testing/pty-pair.ts';
import { MachineFeed, type MachineValue } from './machine-feed.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 1000, identifyIdleMs: 1000, idleTimeoutMs: 2000 };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const program = (count: number) => Array.from({ length: count }, (_, i) => `G1 X${i + 1} F6000`).join('\n');

/** A machine controller on a pty pair with the fake Marlin, and the feed watching it. */
async function feedBench() {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 2 });
  cleanups.push(() => marlin.close());
  const machine = new MachineController({ timings: TIMINGS });
  cleanups.push(() => machine.close());
  const feed = new MachineFeed(machine);
  cleanups.push(async () => feed.close());
  return { pair, machine, feed };
}

describe('the machine feed', () => {
  it('carries the job name from the job start to its end, and none before', async () => {
    const { pair, machine, feed } = await feedBench();
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

  it("fills the layer fields from the running job's layer comments as its lines are acknowledged", async () => {
    const { pair, machine, feed } = await feedBench();
    const seen: MachineValue[] = [];
    feed.onChange((value) => seen.push(value));

    // Two layers as the planner writes them: a hoop layer, then a helical one with two circuits.
    const moves = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `G1 X${from + i} A${(from + i) * 3} F6000`);
    const gcode = [
      '; Layer 1 of 2: hoop',
      ...moves(1, 60),
      '; Layer 2 of 2: helical',
      '; \tPattern: 1/1 Circuit: 1/2',
      ...moves(61, 60),
      '; \tPattern: 1/1 Circuit: 2/2',
      ...moves(121, 60),
    ].join('\n');
    await machine.connect(pair.near);
    expect(feed.value.layer).toBeNull();
    await machine.startJob({ gcode }, { name: 'two-layers.gcode' });
    await eventually(() => feed.value.jobState === 'completed', 15_000);

    // Layer 1 (hoop) is seen before layer 2 (helical), never the other way round, and the
    // finished job keeps its last layer.
    const layers = seen
      .filter((value) => value.layer !== null)
      .map((value) => `${value.layer}/${value.layerCount} ${value.layerType}`);
    const distinct = layers.filter((layer, i) => layer !== layers[i - 1]);
    expect(distinct).toEqual(['1/2 hoop', '2/2 helical']);
    expect(feed.value).toMatchObject({ layer: 2, layerCount: 2, layerType: 'helical' });
    expect(machine.status().job?.place).toEqual({
      layer: 2,
      layers: 2,
      windType: 'helical',
      circuit: 2,
      circuits: 2,
      pattern: 1,
      patterns: 1,
    });
  });

  it('leaves the layer fields null for a program without layer comments', async () => {
    const { pair, machine, feed } = await feedBench();
    await machine.connect(pair.near);
    await machine.startJob({ gcode: program(50) }, { name: 'plain.gcode' });
    await eventually(() => feed.value.jobState === 'completed', 15_000);
    expect(feed.value).toMatchObject({
      linesAcknowledged: 50,
      layer: null,
      layerCount: null,
      layerType: null,
    });
  });
});
