// The real serial path: the machine controller opens one end of a socat pseudo-terminal pair with
// `serialport`; the scripted fake Marlin answers on the other end.
import { afterEach, describe, expect, it } from 'vitest';
import { MachineError } from '../../../engine/errors.ts';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import { type Program, prepareProgram } from '../../../engine/machine/program.ts';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { eventually } from '../../../engine/testing/eventually.ts';
import type { FakeMarlin, FakeMarlinOptions, Reaction } from '../testing/fake-marlin.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../testing/pty-pair.ts';
import { MachineController } from './controller.ts';

// The fake stays silent on open, so the boot wait is all idle time: keep it short here.
const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 1000, identifyIdleMs: 1000, idleTimeoutMs: 2000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

interface Bench {
  pair: PtyPair;
  fake: FakeMarlin;
  onPort: FakeMarlinOnPort;
  machine: MachineController;
  events: MachineEvent[];
}

async function bench(
  fakeOptions: Omit<FakeMarlinOptions, 'send'> = {},
  timings: Partial<typeof TIMINGS> = {},
): Promise<Bench> {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, fakeOptions);
  cleanups.push(() => onPort.close());
  const machine = new MachineController({ timings: { ...TIMINGS, ...timings } });
  cleanups.push(() => machine.close());
  const events: MachineEvent[] = [];
  machine.subscribe((event) => events.push(event));
  return { pair, fake: onPort.fake, onPort, machine, events };
}

function program(count: number): Program {
  const lines = ['; Towpath test program', 'G0 F9000'];
  for (let i = 1; i < count; i++) lines.push(`G0 X${(i * 0.5).toFixed(1)} A${(i * 7) % 360} B0`);
  return prepareProgram(`${lines.join('\n')}\n`);
}

const commands = (p: Program, count = p.total) => p.commands.slice(0, count).map((c) => c.command);

function once(n: number, reaction: Reaction) {
  return ({ n: line, attempt }: { n: number; attempt: number }) =>
    line === n && attempt === 1 ? reaction : undefined;
}

describe('streaming over a real pseudo-terminal pair', () => {
  it('connects, identifies and streams every command exactly once, in order', async () => {
    const b = await bench();
    const status = await b.machine.connect(b.pair.near, 250000);
    expect(status).toMatchObject({ state: 'ready', port: b.pair.near, baudRate: 250000 });
    expect(status.controller?.firmware).toBe('Marlin 2.1.2.5 (Towpath fake)');
    const p = program(400);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome).toMatchObject({ status: 'completed', acknowledged: 400, total: 400 });
    expect(b.fake.commands).toEqual(commands(p));
    expect(b.fake.accepted.map((a) => a.n)).toEqual([0, ...Array.from({ length: 400 }, (_, i) => i + 1)]);
    expect(b.fake.lineErrors).toBe(0);
    // Already connected to that port: the connection stays open for the next job.
    expect(b.machine.status().state).toBe('completed');
  });

  it('recovers from corrupted checksums and line-number errors without losing or repeating a line', async () => {
    const faults: Record<number, Reaction> = {
      1: { kind: 'corrupt' },
      40: { kind: 'corrupt' },
      41: { kind: 'wrong-number' },
      120: { kind: 'corrupt' },
      199: { kind: 'wrong-number' },
    };
    const b = await bench({
      // Line 120 is garbled three times running.
      react: ({ n, attempt }) =>
        n in faults && (attempt === 1 || (n === 120 && attempt <= 3)) ? faults[n] : undefined,
    });
    const p = program(200);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome.status).toBe('completed');
    expect(b.fake.commands).toEqual(commands(p));
    expect(b.fake.lineErrors).toBe(7);
    // The port was opened for this job only, so it is closed again.
    expect(b.machine.status().state).toBe('idle');
  });

  it('keeps waiting through several seconds of busy: processing, then continues', async () => {
    const b = await bench(
      { react: once(5, { kind: 'busy', forMs: 2500, everyMs: 250 }) },
      { idleTimeoutMs: 1000 },
    );
    const p = program(10);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome.status).toBe('completed');
    expect(b.fake.commands).toEqual(commands(p));
    expect(
      b.events.filter((e) => e.type === 'log' && e.text === 'busy: processing').length,
    ).toBeGreaterThanOrEqual(5);
  });

  it('surfaces echo: and //action: noise and carries on', async () => {
    const b = await bench({
      react: once(3, {
        kind: 'say',
        lines: ['echo:Settings Stored', '//action:pause', 'echo:busy: processing'],
      }),
    });
    const p = program(6);
    expect((await b.machine.stream(p, b.pair.near)).status).toBe('completed');
    expect(b.fake.commands).toEqual(commands(p));
    expect(b.events.filter((e) => e.type === 'action').map((e) => e.type === 'action' && e.text)).toEqual([
      'pause',
    ]);
  });

  it('streams to a slow controller', async () => {
    const b = await bench({ ackDelayMs: 15 });
    const p = program(30);
    expect((await b.machine.stream(p, b.pair.near)).status).toBe('completed');
    expect(b.fake.commands).toEqual(commands(p));
  });

  it('times out on a lost ok and stops with the correct prefix', async () => {
    const b = await bench({ react: once(7, { kind: 'silent' }) }, { idleTimeoutMs: 400 });
    const p = program(20);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome).toMatchObject({ status: 'error', acknowledged: 6, sent: 7 });
    expect(outcome.error).toEqual(
      new MachineError('No response from the controller within 0.4 s (waiting for line 7)'),
    );
    expect(b.fake.commands).toEqual(commands(p, 7));
    expect(b.machine.status()).toMatchObject({ state: 'error', message: outcome.error?.message });
  });

  it("aborts the job when the controller restarts mid-job ('start')", async () => {
    const b = await bench({ react: once(12, { kind: 'restart' }) });
    const p = program(30);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome.error?.message).toBe(
      "Controller restarted during the job (it sent 'start'); the job was aborted",
    );
    expect(b.fake.commands).toEqual(commands(p, 11));
  });

  it.each([
    ['Error:Printer halted. kill() called!', 'Controller halted: Error:Printer halted. kill() called!'],
    ['Error:Stepper driver fault', 'Controller error: Stepper driver fault'],
  ])('ends in error on the fatal line %s', async (line, message) => {
    const b = await bench({ react: once(9, { kind: 'die', line }) });
    const p = program(20);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome.error?.message).toBe(message);
    expect(b.fake.commands).toEqual(commands(p, 8));
    expect(b.machine.status()).toMatchObject({ state: 'error', message });
  });

  it('ends the job in error with a clear message when the port vanishes, and resumes nothing', async () => {
    let pair: PtyPair | undefined;
    const b = await bench({
      react: ({ n }) => {
        if (n !== 15) return undefined;
        void pair?.vanish();
        return { kind: 'silent' };
      },
    });
    pair = b.pair;
    const p = program(40);
    const outcome = await b.machine.stream(p, b.pair.near);
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toMatch(new RegExp(`^Serial port ${b.pair.near} closed: .+`));
    expect(b.fake.commands).toEqual(commands(p, 15));
    expect(b.machine.status().state).toBe('error');
    await expect(b.machine.startJob({ gcode: 'G0 X1' })).rejects.toThrow(
      new MachineStateError('Machine is not connected'),
    );
  });

  it('reports a port that cannot be opened', async () => {
    const b = await bench();
    await expect(b.machine.connect(`${b.pair.near}-missing`)).rejects.toThrow(
      new MachineError(`Could not open serial port ${b.pair.near}-missing: No such file or directory`),
    );
  });
});

describe('job control over the real path', () => {
  it('gets M112 to the controller within 50 ms while a 10,000-line job streams, then sends nothing more', async () => {
    const b = await bench();
    await b.machine.connect(b.pair.near);
    const p = program(10_000);
    const { total } = await b.machine.startJob({ gcode: p.commands.map((c) => c.command).join('\n') });
    expect(total).toBe(10_000);
    await b.fake.until(() => b.fake.commands.length >= 1000, 10_000, '1000 commands');
    const calledAt = performance.now();
    expect(b.machine.emergencyStop()).toBe(true);
    await b.fake.until(() => b.fake.estopAt !== undefined, 1000, 'M112');
    expect((b.fake.estopAt as number) - calledAt).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // At most the line already being written can follow M112; nothing after it.
    const afterStop = b.fake.lines.slice(b.fake.lines.indexOf('M112') + 1).filter((l) => /^N\d+ /.test(l));
    expect(afterStop.length).toBeLessThanOrEqual(1);
    expect(b.machine.status()).toMatchObject({ state: 'error', message: 'Emergency stop' });
    const accepted = b.fake.commands.length;
    expect(b.fake.commands).toEqual(commands(p, accepted));
  });

  it('pauses at a line boundary, resumes, and cancels without ever restarting from line 1', async () => {
    const b = await bench({ ackDelayMs: 2 });
    await b.machine.connect(b.pair.near);
    const p = program(300);
    await b.machine.startJob({ gcode: p.commands.map((c) => c.command).join('\n') });
    await b.fake.until(() => b.fake.commands.length >= 50, 10_000, '50 commands');
    b.machine.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const atPause = b.fake.commands.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(b.fake.commands.length).toBe(atPause);
    expect(b.machine.status()).toMatchObject({ state: 'paused', job: { acknowledged: atPause } });

    b.machine.resume();
    await b.fake.until(() => b.fake.commands.length >= atPause + 50, 10_000, '50 more commands');
    b.machine.cancel();
    // No received line signals the host's own state: look at it.
    await eventually(() => b.machine.status().state === 'cancelled', 2000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const atCancel = b.fake.commands.length;
    expect(atCancel).toBeLessThan(300);
    expect(b.fake.commands).toEqual(commands(p, atCancel));
    expect(b.machine.status()).toMatchObject({
      state: 'cancelled',
      job: { acknowledged: atCancel, total: 300 },
    });

    // The connection stayed open: a manual command works.
    expect(await b.machine.send('M400')).toEqual(['ok']);
  });

  it('refuses a second job while one runs', async () => {
    const b = await bench({ ackDelayMs: 5 });
    const p = program(40);
    const first = b.machine.stream(p, b.pair.near);
    await expect(b.machine.stream(p, b.pair.near)).rejects.toThrow(
      new MachineStateError('Machine is busy with another job'),
    );
    await expect(b.machine.startJob({ gcode: 'G0 X1' })).rejects.toThrow(MachineStateError);
    expect((await first).status).toBe('completed');
    expect(b.fake.commands).toEqual(commands(p));
  });
});
