// The protocol host over the in-memory link, on a manual clock: no sleeps, exact wire sequences.
import { describe, expect, it } from 'vitest';
import {
  FakeMarlin,
  type FakeMarlinOptions,
  type Reaction,
} from '../../server/machine/testing/fake-marlin.ts';
import { MachineError } from '../errors.ts';
import { ManualClock } from './clock.ts';
import { MachineStateError } from './errors.ts';
import { type HostTimings, MarlinHost } from './host.ts';
import { frameLine, ProgramError, prepareProgram, SYNC_FRAME } from './program.ts';
import { createMemoryLink, type MemoryDevice } from './transport.ts';
import type { MachineEvent } from './types.ts';

const PORT = '/dev/ttyFAKE';

/** Lets every queued microtask and I/O callback run (the link delivers in microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `close` stands in for the port's own close (one that takes a while, say). */
function rig(timings: Partial<HostTimings> = {}, close?: () => Promise<void>) {
  const link = createMemoryLink();
  const clock = new ManualClock();
  const opened: string[] = [];
  const transport = close ? { ...link.transport, close } : link.transport;
  const host = new MarlinHost({
    open: async (port, baudRate) => {
      opened.push(`${port}@${baudRate}`);
      return transport;
    },
    clock,
    timings,
  });
  const events: MachineEvent[] = [];
  host.subscribe((event) => events.push(event));
  return { host, device: link.device, clock, events, opened };
}

type Rig = ReturnType<typeof rig>;

function attachFake(r: Rig, options: Omit<FakeMarlinOptions, 'send'> = {}) {
  const fake = new FakeMarlin({ ...options, clock: r.clock, send: (text) => r.device.send(text) });
  r.device.onLine((line) => fake.receive(`${line}\n`));
  return fake;
}

/** Connects through the handshake; the board stays silent on open, so the boot wait runs out. */
async function connect(r: Rig, options: Omit<FakeMarlinOptions, 'send'> = {}) {
  const fake = attachFake(r, options);
  let connected = false;
  const connecting = r.host.connect(PORT).finally(() => {
    connected = true;
  });
  await settle();
  r.clock.advance(r.host.timings.bootIdleMs);
  // A slow fake answers the handshake late too.
  for (let i = 0; i < 10 && !connected; i++) {
    await settle();
    r.clock.advance(options.ackDelayMs ?? 0);
  }
  await connecting;
  return fake;
}

/** Reacts once, on the first arrival of line `n`. */
function once(n: number, reaction: Reaction) {
  return ({ n: line, attempt }: { n: number; attempt: number }) =>
    line === n && attempt === 1 ? reaction : undefined;
}

const program = (count: number) =>
  prepareProgram(Array.from({ length: count }, (_, i) => `G0 X${i + 1} A${(i * 15) % 360}`).join('\n'));

const commandsOf = (count: number) => program(count).commands.map((c) => c.command);

const framesWritten = (device: MemoryDevice) => device.received.filter((line) => /^N[1-9]/.test(line));

describe('connect (§6.3)', () => {
  it('waits out the boot, syncs with M110, identifies with M115 and becomes ready', async () => {
    const r = rig();
    const fake = await connect(r);
    expect(r.opened).toEqual([`${PORT}@250000`]);
    expect(r.device.received).toEqual([SYNC_FRAME, 'M115']);
    expect(fake.unframed).toEqual(['M115']);
    const status = r.host.status();
    expect(status).toMatchObject({ state: 'ready', port: PORT, baudRate: 250000 });
    expect(status.message).toBeUndefined();
    expect(status.controller?.firmware).toBe('Marlin 2.1.2.5 (Towpath fake)');
    expect(status.controller?.capabilities).toMatchObject({ EMERGENCY_PARSER: true, SERIAL_XON_XOFF: false });
    expect(status.controller?.advancedOk).toBe(false);
    const states = r.events.filter((e) => e.type === 'state').map((e) => e.type === 'state' && e.state);
    expect(states).toEqual(['connecting', 'ready']);
  });

  it('detects ADVANCED_OK and warns when the controller has no emergency parser', async () => {
    const r = rig();
    await connect(r, { advancedOk: true, capabilities: { EMERGENCY_PARSER: 0 } });
    const status = r.host.status();
    expect(status.controller?.advancedOk).toBe(true);
    expect(status.message).toMatch(/does not report EMERGENCY_PARSER/);
  });

  it('keeps waiting while the boot banner runs, then syncs 2 s after its last line', async () => {
    const r = rig();
    attachFake(r);
    const connecting = r.host.connect(PORT);
    await settle();
    r.device.send('start\necho:Marlin 2.1.2.5\n');
    await settle();
    r.clock.advance(1500);
    r.device.send('echo: Free Memory: 3000\n');
    await settle();
    r.clock.advance(1999);
    await settle();
    expect(r.device.received).toEqual([]);
    r.clock.advance(1);
    await settle();
    await connecting;
    expect(r.device.received[0]).toBe(SYNC_FRAME);
  });

  it('ends the boot wait at once when the board says ok, and after 10 s of chatter at most', async () => {
    const quick = rig();
    attachFake(quick);
    const connecting = quick.host.connect(PORT);
    await settle();
    quick.device.send('ok\n');
    await settle();
    await connecting;
    expect(quick.clock.now()).toBe(0);

    const chatty = rig();
    attachFake(chatty);
    const chattering = chatty.host.connect(PORT);
    await settle();
    for (let t = 0; t < 9; t++) {
      chatty.device.send('echo:T:20.0\n');
      await settle();
      chatty.clock.advance(1000);
    }
    await settle();
    expect(chatty.device.received).toEqual([]);
    chatty.clock.advance(1000);
    await settle();
    await chattering;
    expect(chatty.device.received[0]).toBe(SYNC_FRAME);
  });

  it('tries the sync three times, then fails with the spec message and closes the port', async () => {
    const r = rig();
    const connecting = r.host.connect(PORT);
    const failed = expect(connecting).rejects.toThrow(
      new MachineError('Controller did not respond on connect; check the port, baud rate and power'),
    );
    await settle();
    r.clock.advance(2000);
    for (let i = 0; i < 3; i++) {
      await settle();
      r.clock.advance(2000);
    }
    await failed;
    expect(r.device.received).toEqual([SYNC_FRAME, SYNC_FRAME, SYNC_FRAME]);
    expect(r.device.closed).toBe(true);
    expect(r.host.status()).toMatchObject({
      state: 'error',
      message: expect.stringMatching(/did not respond/),
    });
  });

  it('retries the sync when the controller rejects a garbled M110', async () => {
    const r = rig();
    let first = true;
    r.device.onLine((line) => {
      if (line === SYNC_FRAME && first) {
        first = false;
        r.device.send('Error:checksum mismatch, Last Line: 0\nResend: 1\nok\n');
      } else r.device.send('ok\n');
    });
    const connecting = r.host.connect(PORT);
    await settle();
    r.clock.advance(2000);
    await settle();
    await connecting;
    expect(r.device.received).toEqual([SYNC_FRAME, SYNC_FRAME, 'M115']);
  });

  it('continues with the firmware unknown when M115 gets no answer', async () => {
    const r = rig();
    r.device.onLine((line) => {
      if (line === SYNC_FRAME) r.device.send('ok\n');
    });
    const connecting = r.host.connect(PORT);
    await settle();
    r.clock.advance(2000);
    await settle();
    r.clock.advance(2000);
    await settle();
    await connecting;
    expect(r.host.status().controller).toEqual({ firmware: null, capabilities: {}, advancedOk: false });
  });

  it('reports a port that cannot be opened', async () => {
    const host = new MarlinHost({
      open: async () => {
        throw new Error('No such file or directory');
      },
      clock: new ManualClock(),
    });
    await expect(host.connect('/dev/nope', 115200)).rejects.toThrow(
      new MachineError('Could not open serial port /dev/nope: No such file or directory'),
    );
    expect(host.status()).toMatchObject({ state: 'error', port: '/dev/nope', baudRate: 115200 });
  });

  it('fails the connect on a halt during boot', async () => {
    const r = rig();
    const connecting = r.host.connect(PORT);
    await settle();
    r.device.send('Error:Printer halted. kill() called!\n');
    await expect(connecting).rejects.toThrow('Controller halted: Error:Printer halted. kill() called!');
  });

  it('refuses a second port while connected and answers the same port with its status', async () => {
    const r = rig();
    await connect(r);
    await expect(r.host.connect('/dev/ttyOTHER')).rejects.toThrow(
      new MachineStateError(`Machine is connected to ${PORT}; disconnect it first`),
    );
    await expect(r.host.connect(PORT)).resolves.toMatchObject({ state: 'ready' });
    expect(r.opened).toHaveLength(1);
    await r.host.disconnect();
    expect(r.device.closed).toBe(true);
    expect(r.host.status()).toMatchObject({ state: 'idle', port: null });
  });
});

describe('streaming (§6.4, §6.5)', () => {
  it('sends every command once, in order, framed from N1, and reports progress and completion', async () => {
    const r = rig();
    const fake = await connect(r);
    const job = r.host.startJob(
      prepareProgram('; start\nG0 X0 A0 B0\n\nG0 F9000\nG0 X0 A45 B0 ; go\nG92 A0\n'),
    );
    expect(job.total).toBe(4);
    const outcome = await job.done;
    expect(outcome).toMatchObject({ status: 'completed', sent: 4, acknowledged: 4, total: 4 });
    expect(framesWritten(r.device)).toEqual([
      'N1 G0 X0 A0 B0*99',
      'N2 G0 F9000*68',
      'N3 G0 X0 A45 B0*80',
      'N4 G92 A0*71',
    ]);
    expect(fake.commands).toEqual(['G0 X0 A0 B0', 'G0 F9000', 'G0 X0 A45 B0', 'G92 A0']);
    const progress = r.events.filter((e) => e.type === 'progress');
    expect(progress.map((e) => e.type === 'progress' && [e.line, e.sourceLine, e.command])).toEqual([
      [1, 2, 'G0 X0 A0 B0'],
      [2, 4, 'G0 F9000'],
      [3, 5, 'G0 X0 A45 B0'],
      [4, 6, 'G92 A0'],
    ]);
    const tail = r.events.slice(-2).map(({ seq: _, ...rest }) => rest);
    expect(tail).toEqual([
      { type: 'complete', acknowledged: 4, total: 4, elapsed_s: 0 },
      { type: 'state', state: 'completed' },
    ]);
    const seqs = r.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Acknowledged job lines are reported as progress, not as one log event each.
    expect(r.events.filter((e) => e.type === 'log' && e.text === 'ok')).toHaveLength(2);
  });

  it('estimates the remaining time from the acknowledged lines, not counting pauses', async () => {
    const r = rig();
    await connect(r, { ackDelayMs: 100 });
    const job = r.host.startJob(program(4));
    await settle();
    r.clock.advance(100);
    await settle();
    r.host.pause();
    r.clock.advance(100);
    await settle();
    r.clock.advance(5000);
    r.host.resume();
    await settle();
    expect(r.host.status().job).toMatchObject({ acknowledged: 2, elapsed_s: 0.2, remaining_s: 0.2 });
    for (let i = 0; i < 2; i++) {
      r.clock.advance(100);
      await settle();
    }
    expect(await job.done).toMatchObject({ status: 'completed', elapsed_s: 0.4 });
  });

  it('resends the line in flight on request, swallowing the ok that follows Resend', async () => {
    const r = rig();
    const fake = await connect(r);
    fake.stop();
    const job = r.host.startJob(program(2));
    await settle();
    r.device.send('ok\n');
    await settle();
    const n2 = frameLine(2, 'G0 X2 A15');
    expect(r.device.received.at(-1)).toBe(n2);
    const before = r.device.received.length;
    r.device.send('Error:checksum mismatch, Last Line: 1\nResend: 2\n');
    await settle();
    expect(r.device.received.slice(before)).toEqual([n2]);
    r.device.send('ok\n');
    await settle();
    expect(r.host.status().job?.acknowledged).toBe(1);
    r.device.send('ok N2 P15 B3\n');
    expect(await job.done).toMatchObject({ status: 'completed', acknowledged: 2 });
  });

  it('recovers from corrupted lines and line-number errors without losing or repeating a command', async () => {
    const r = rig();
    const faults: Record<number, Reaction> = {
      3: { kind: 'corrupt' },
      7: { kind: 'wrong-number' },
      8: { kind: 'corrupt' },
      20: { kind: 'corrupt' },
    };
    const fake = await connect(r, {
      react: ({ n, attempt }) => (attempt <= 2 && n in faults ? faults[n] : undefined),
    });
    const outcome = await r.host.startJob(program(25)).done;
    expect(outcome.status).toBe('completed');
    expect(fake.commands).toEqual(commandsOf(25));
    expect(fake.lineErrors).toBe(8);
  });

  it('gives up after more than 5 resend requests for one line', async () => {
    const r = rig();
    const fake = await connect(r, { react: ({ n }) => (n === 2 ? { kind: 'corrupt' } : undefined) });
    const outcome = await r.host.startJob(program(3)).done;
    expect(outcome).toMatchObject({ status: 'error', acknowledged: 1 });
    expect(outcome.error?.message).toBe('Controller requested a resend of line 2 more than 5 times');
    expect(framesWritten(r.device).filter((line) => line.startsWith('N2 '))).toHaveLength(6);
    expect(fake.commands).toEqual(commandsOf(1));
    expect(r.host.status()).toMatchObject({ state: 'error', message: outcome.error?.message });
    expect(r.device.closed).toBe(true);
  });

  it('never resends an acknowledged line: a resend of another line is fatal', async () => {
    const r = rig();
    const fake = await connect(r, { react: once(3, { kind: 'resend-other', line: 2 }) });
    const outcome = await r.host.startJob(program(5)).done;
    expect(outcome.error?.message).toBe(
      'Controller requested a resend of line 2, but line 3 is the one in flight',
    );
    expect(fake.commands).toEqual(commandsOf(2));
    expect(framesWritten(r.device).filter((line) => line.startsWith('N2 '))).toHaveLength(1);
  });

  it('times out when an ok is lost, naming the line', async () => {
    const r = rig();
    const fake = await connect(r, { react: once(3, { kind: 'silent' }) });
    const job = r.host.startJob(program(5));
    await settle();
    r.clock.advance(9999);
    await settle();
    expect(r.host.state).toBe('streaming');
    r.clock.advance(1);
    const outcome = await job.done;
    expect(outcome.error?.message).toBe('No response from the controller within 10 s (waiting for line 3)');
    expect(fake.commands).toEqual(commandsOf(3));
    expect(outcome).toMatchObject({ sent: 3, acknowledged: 2 });
  });

  it('keeps waiting through busy keep-alives longer than the idle timeout', async () => {
    const r = rig();
    const fake = await connect(r, {
      react: once(2, { kind: 'busy', forMs: 25_000, everyMs: 2000, text: 'busy: paused for user' }),
    });
    const job = r.host.startJob(program(3));
    for (let t = 0; t < 26; t++) {
      await settle();
      r.clock.advance(1000);
    }
    expect(await job.done).toMatchObject({ status: 'completed' });
    expect(fake.commands).toEqual(commandsOf(3));
    expect(r.events.some((e) => e.type === 'waiting-for-user' && e.text === 'busy: paused for user')).toBe(
      true,
    );
  });

  it("does not count 'wait' as an answer: a dropped line ends in the idle timeout (§6.2 row 5a)", async () => {
    const r = rig();
    const fake = await connect(r, { react: once(3, { kind: 'stall', everyMs: 1000 }) });
    const job = r.host.startJob(program(5));
    for (let t = 0; t < 9; t++) {
      await settle();
      r.clock.advance(1000);
    }
    await settle();
    expect(r.host.state).toBe('streaming');
    expect(r.events.filter((e) => e.type === 'log' && e.text === 'wait').length).toBeGreaterThan(5);
    r.clock.advance(1000);
    const outcome = await job.done;
    expect(outcome.error?.message).toBe('No response from the controller within 10 s (waiting for line 3)');
    expect(outcome).toMatchObject({ status: 'error', sent: 3, acknowledged: 2 });
    expect(fake.commands).toEqual(commandsOf(2));
    expect(r.device.closed).toBe(true);
  });

  it('surfaces //action: lines and echo noise as events and carries on', async () => {
    const r = rig();
    const fake = await connect(r, {
      react: once(2, { kind: 'say', lines: ['//action:notification Tow low', 'echo:M117 hello'] }),
    });
    expect(await r.host.startJob(program(3)).done).toMatchObject({ status: 'completed' });
    expect(fake.commands).toEqual(commandsOf(3));
    const seen = r.events.filter(
      (e) => e.type === 'action' || (e.type === 'log' && e.text.startsWith('echo:')),
    );
    expect(seen.map(({ seq: _, ...rest }) => rest)).toEqual([
      { type: 'action', text: 'notification Tow low' },
      { type: 'log', direction: 'rx', text: 'echo:M117 hello' },
    ]);
  });

  it("aborts the job when the controller restarts mid-job ('start')", async () => {
    const r = rig();
    const fake = await connect(r, { react: once(4, { kind: 'restart' }) });
    const outcome = await r.host.startJob(program(6)).done;
    expect(outcome.error?.message).toBe(
      "Controller restarted during the job (it sent 'start'); the job was aborted",
    );
    expect(fake.commands).toEqual(commandsOf(3));
    expect(r.host.state).toBe('error');
  });

  it.each([
    ['Error:Printer halted. kill() called!', 'Controller halted: Error:Printer halted. kill() called!'],
    [
      'Error:Heating failed, system stopped! Heater_ID: 0',
      'Controller halted: Error:Heating failed, system stopped! Heater_ID: 0',
    ],
    ['Error:Axis B stalled', 'Controller error: Axis B stalled'],
  ])('ends the job in error on %s', async (line, message) => {
    const r = rig();
    const fake = await connect(r, { react: once(3, { kind: 'die', line }) });
    const outcome = await r.host.startJob(program(5)).done;
    expect(outcome.error?.message).toBe(message);
    expect(fake.commands).toEqual(commandsOf(2));
    expect(r.host.status()).toMatchObject({ state: 'error', message });
    const errors = r.events.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
  });

  it('fails the job when the port vanishes', async () => {
    const r = rig();
    await connect(r, { react: once(3, { kind: 'silent' }) });
    const job = r.host.startJob(program(5));
    await settle();
    r.device.vanish('the device was disconnected');
    const outcome = await job.done;
    expect(outcome.error?.message).toBe(`Serial port ${PORT} closed: the device was disconnected`);
    expect(r.host.state).toBe('error');
    // Nothing resumes by itself: a new job needs a new connect.
    expect(() => r.host.startJob(program(1))).toThrow(new MachineStateError('Machine is not connected'));
  });

  it('syncs again before the next line when the controller restarted between jobs', async () => {
    const r = rig();
    const fake = await connect(r);
    await r.host.startJob(program(2)).done;
    fake.say('start');
    await settle();
    expect(r.host.state).toBe('completed');
    const before = r.device.received.length;
    await r.host.startJob(program(1)).done;
    expect(r.device.received.slice(before)).toEqual([SYNC_FRAME, frameLine(1, 'G0 X1 A0')]);
  });

  it('accepts one job at a time and only when connected', async () => {
    const r = rig();
    expect(() => r.host.startJob(program(1))).toThrow(new MachineStateError('Machine is not connected'));
    await connect(r, { ackDelayMs: 10 });
    expect(() => r.host.startJob(prepareProgram('; nothing'))).toThrow(
      new ProgramError('G-code program contained no commands'),
    );
    const job = r.host.startJob(program(2));
    expect(() => r.host.startJob(program(1))).toThrow(
      new MachineStateError('Machine is busy with another job'),
    );
    await expect(r.host.disconnect()).rejects.toThrow(MachineStateError);
    await expect(r.host.send('M114')).rejects.toThrow(
      new MachineStateError('Machine is busy with another job'),
    );
    for (let i = 0; i < 2; i++) {
      await settle();
      r.clock.advance(10);
    }
    expect(await job.done).toMatchObject({ status: 'completed' });
  });
});

describe('job control (§6.5)', () => {
  it('pauses after the in-flight line, takes manual commands while paused, and resumes', async () => {
    const r = rig();
    const fake = await connect(r, {
      ackDelayMs: 10,
      react: ({ command }) =>
        command === 'M114' ? { kind: 'say', lines: ['X:2.00 Y:0.00 Z:0.00'] } : undefined,
    });
    const job = r.host.startJob(program(4));
    await settle();
    r.clock.advance(10);
    await settle();
    r.host.pause();
    expect(r.host.state).toBe('paused');
    const written = r.device.received.length;
    r.clock.advance(10);
    await settle();
    expect(r.host.status().job?.acknowledged).toBe(2);
    r.clock.advance(60_000);
    await settle();
    expect(r.device.received.length).toBe(written);

    const answer = r.host.send('M114 ; where?');
    await settle();
    r.clock.advance(10);
    expect(await answer).toEqual(['X:2.00 Y:0.00 Z:0.00', 'ok']);

    r.host.resume();
    expect(r.host.state).toBe('streaming');
    for (let i = 0; i < 2; i++) {
      await settle();
      r.clock.advance(10);
    }
    expect(await job.done).toMatchObject({ status: 'completed', acknowledged: 4 });
    const [a, b, c, d] = commandsOf(4);
    expect(fake.commands).toEqual([a, b, 'M114', c, d]);
    // The timeout never fired during the minute-long pause.
    expect(r.events.some((e) => e.type === 'error')).toBe(false);
  });

  it('cancels at the next line boundary and keeps the connection open', async () => {
    const r = rig();
    const fake = await connect(r, { ackDelayMs: 10 });
    const job = r.host.startJob(program(5));
    await settle();
    r.host.cancel();
    expect(r.host.state).toBe('streaming');
    r.clock.advance(10);
    const outcome = await job.done;
    expect(outcome).toMatchObject({ status: 'cancelled', sent: 1, acknowledged: 1, total: 5 });
    expect(r.host.status()).toMatchObject({
      state: 'cancelled',
      message: 'Cancelled after line 1 of 5',
      port: PORT,
    });
    expect(fake.commands).toEqual(commandsOf(1));

    // A new job starts from its own first line; line numbers carry on.
    const again = r.host.startJob(program(2));
    for (let i = 0; i < 2; i++) {
      await settle();
      r.clock.advance(10);
    }
    expect(await again.done).toMatchObject({ status: 'completed' });
    expect(fake.commands).toEqual([...commandsOf(1), ...commandsOf(2)]);
    expect(framesWritten(r.device).map((line) => line.split(' ')[0])).toEqual(['N1', 'N2', 'N3']);
  });

  it('cancels a paused job at once', async () => {
    const r = rig();
    await connect(r, { ackDelayMs: 10 });
    const job = r.host.startJob(program(3));
    await settle();
    r.host.pause();
    r.clock.advance(10);
    await settle();
    r.host.cancel();
    expect(await job.done).toMatchObject({ status: 'cancelled', acknowledged: 1 });
  });
});

describe('abort', () => {
  it('ends the job at once while a line is in flight: no M112, port closed, the line named', async () => {
    const r = rig();
    const fake = await connect(r, {
      react: once(4, { kind: 'stall', everyMs: 500, text: 'busy: processing' }),
    });
    const job = r.host.startJob(program(9));
    await settle();
    r.clock.advance(600);
    await settle();
    expect(r.host.abort()).toBe('Aborted while line 4 was in flight');
    const outcome = await job.done;
    expect(outcome).toMatchObject({ status: 'error', sent: 4, acknowledged: 3 });
    expect(outcome.error?.message).toBe('Aborted while line 4 was in flight');
    expect(r.host.status()).toMatchObject({ state: 'error', message: 'Aborted while line 4 was in flight' });
    expect(r.device.closed).toBe(true);
    expect(fake.unframed).not.toContain('M112');
  });

  it('turns a second cancel into an abort while the first waits on a line in flight', async () => {
    const r = rig();
    await connect(r, { react: once(2, { kind: 'stall', everyMs: 500, text: 'busy: processing' }) });
    const job = r.host.startJob(program(5));
    await settle();
    r.host.cancel();
    // A long dwell: busy keep-alives hold the first cancel at the line in flight.
    for (let t = 0; t < 40; t++) {
      r.clock.advance(500);
      await settle();
    }
    expect(r.host.state).toBe('streaming');
    r.host.cancel();
    expect(await job.done).toMatchObject({
      status: 'error',
      acknowledged: 1,
      error: new MachineError('Aborted while line 2 was in flight'),
    });
    expect(r.device.closed).toBe(true);
  });

  it('is a no-op without a job or a port', () => {
    expect(rig().host.abort()).toBeUndefined();
  });

  it('leaves the port free to open again once close() returns, though the abort did not wait', async () => {
    // A port whose close takes a while (a serial port drains and releases its lock).
    let finishClose = () => {};
    let closes = 0;
    const r = rig({}, () => {
      closes++;
      return new Promise<void>((resolve) => {
        finishClose = resolve;
      });
    });
    await connect(r, { react: once(2, { kind: 'stall', everyMs: 500, text: 'busy: processing' }) });
    const job = r.host.startJob(program(5));
    await settle();
    expect(r.host.abort()).toBe('Aborted while line 2 was in flight');
    await job.done;
    let closed = false;
    const closing = r.host.close().then(() => {
      closed = true;
    });
    await settle();
    expect(closes).toBe(1);
    expect(closed).toBe(false);
    finishClose();
    await closing;
  });
});

describe('shutting down', () => {
  it('cancels a running job at the next line boundary, then closes the port', async () => {
    const r = rig();
    const fake = await connect(r, { ackDelayMs: 10 });
    const job = r.host.startJob(program(5));
    await settle();
    const closing = r.host.close();
    r.clock.advance(10);
    await settle();
    await closing;
    expect(await job.done).toMatchObject({ status: 'cancelled', acknowledged: 1 });
    expect(fake.commands).toEqual(commandsOf(1));
    expect(r.device.closed).toBe(true);
    expect(r.host.state).toBe('idle');
  });

  it('gives up on a line that is never acknowledged after the grace time', async () => {
    const r = rig();
    await connect(r, { react: once(2, { kind: 'silent' }) });
    const job = r.host.startJob(program(5));
    await settle();
    const closing = r.host.close(500);
    r.clock.advance(500);
    await closing;
    expect((await job.done).error?.message).toBe('Towpath shut down while a line was in flight');
    expect(r.device.closed).toBe(true);
  });
});

describe('emergency stop (§6.5)', () => {
  it('writes M112 at once while a line is in flight, then sends nothing more and closes the port', async () => {
    const r = rig();
    const fake = await connect(r, { react: once(3, { kind: 'silent' }) });
    const job = r.host.startJob(program(10));
    await settle();
    expect(r.device.received.at(-1)).toBe(frameLine(3, 'G0 X3 A30'));
    expect(r.host.emergencyStop()).toBe(true);
    // Synchronously: the bytes went out through the urgent path before anything else happened.
    expect(r.device.received.at(-1)).toBe('M112');
    expect(r.device.urgentWrites).toBe(1);
    expect(r.host.state).toBe('error');
    const outcome = await job.done;
    expect(outcome).toMatchObject({ status: 'error', acknowledged: 2 });
    expect(outcome.error?.message).toBe('Emergency stop');
    expect(r.device.closed).toBe(true);
    await settle();
    expect(fake.estopAt).toBeDefined();
    expect(r.device.received.at(-1)).toBe('M112');
  });

  it('goes out even while a resend is pending', async () => {
    const r = rig();
    const fake = await connect(r);
    fake.stop();
    const job = r.host.startJob(program(3));
    await settle();
    r.device.send('ok\n');
    await settle();
    r.device.send('Error:checksum mismatch, Last Line: 1\nResend: 2\n');
    await settle();
    r.host.emergencyStop();
    expect(r.device.received.slice(-3)).toEqual([
      frameLine(2, 'G0 X2 A15'),
      frameLine(2, 'G0 X2 A15'),
      'M112',
    ]);
    r.device.send('ok\nok\n');
    expect((await job.done).error?.message).toBe('Emergency stop');
  });

  it('is what a manual M112 does, and is a no-op without a port', async () => {
    const idle = rig();
    expect(idle.host.emergencyStop()).toBe(false);
    expect(idle.host.state).toBe('idle');

    const r = rig();
    await connect(r);
    await expect(r.host.send('m112')).resolves.toEqual([]);
    expect(r.device.urgentWrites).toBe(1);
    expect(r.host.status()).toMatchObject({ state: 'error', message: 'Emergency stop' });
  });
});

describe('manual commands', () => {
  it('frames a single command and answers with the controller lines up to its ok', async () => {
    const r = rig();
    await connect(r, {
      react: ({ command }) =>
        command === 'M114' ? { kind: 'say', lines: ['X:0.00 Y:0.00 Z:0.00'] } : undefined,
    });
    await expect(r.host.send('  M114  ; report')).resolves.toEqual(['X:0.00 Y:0.00 Z:0.00', 'ok']);
    expect(r.device.received.at(-1)).toBe(frameLine(1, 'M114'));
    await expect(r.host.send('; only a comment')).rejects.toThrow(ProgramError);
    await expect(r.host.send('G1 X1*3')).rejects.toThrow(
      new ProgramError("Command contains '*', which is reserved for the checksum"),
    );
    await expect(r.host.send('G1\nG2')).rejects.toThrow('A manual command must be a single line');
  });
});
