// `towpath stream` against the fake Marlin on a real pseudo-terminal pair: in process (to drive
// Ctrl-C and the prompt) and once as a real child process streaming a planned reference program.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareProgram } from '../../engine/machine/program.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { openSerialPort } from '../machine/process/serial-transport.ts';
import type { FakeMarlinOptions } from '../machine/testing/fake-marlin.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { type RecordingIo, recordingIo } from '../testing/cli-io.ts';
import { REPO_ROOT, startNode } from '../testing/process.ts';
import { towpathOnTerminal } from '../testing/terminal.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { main } from './main.ts';
import type { StreamIo } from './stream.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function fakeOnPty(options: Omit<FakeMarlinOptions, 'send'> = {}) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, options);
  cleanups.push(() => onPort.close());
  return { pair, fake: onPort.fake };
}

type TestIo = StreamIo & RecordingIo;

function testIo(prompt?: (question: string) => Promise<string | null>): TestIo {
  return { ...recordingIo(), prompt: prompt ?? null, machine: { timings: { bootIdleMs: 50 } } };
}

async function gcodeFile(lines: number): Promise<{ file: string; commands: string[] }> {
  const dir = await makeTempDir();
  const file = join(dir, 'job.gcode');
  const text = ['; test job', ...Array.from({ length: lines }, (_, i) => `G0 X${i} A${i % 360}`)].join('\n');
  await writeFile(file, text);
  return { file, commands: prepareProgram(text).commands.map((c) => c.command) };
}

/** `towpath stream <file> --port <port> --json` as a child process, killed after the test. */
function streamProcess(file: string, port: string, ...more: string[]) {
  const child = startNode(join(REPO_ROOT, 'server/cli.ts'), [
    'stream',
    file,
    '--port',
    port,
    '--json',
    ...more,
  ]);
  cleanups.push(async () => child.child.kill('SIGKILL'));
  return child;
}

/** The `--json` summary of a live run at the default baud rate. */
const summaryOf = (status: string, commands: number, total: number, extra: object = {}) => ({
  status,
  commands,
  total,
  baudRate: 250000,
  dryRun: false,
  ...extra,
});

const json = (io: TestIo) => JSON.parse(io.out.join('').trim().split('\n').at(-1) as string);

describe('towpath stream', () => {
  it('streams a file and prints the JSON summary', async () => {
    const { pair, fake } = await fakeOnPty();
    const { file, commands } = await gcodeFile(120);
    const io = testIo();
    expect(await main(['stream', file, '--port', pair.near, '--json'], io)).toBe(0);
    expect(json(io)).toEqual({
      status: 'completed',
      commands: 120,
      total: 120,
      baudRate: 250000,
      dryRun: false,
    });
    expect(fake.commands).toEqual(commands);
  });

  it('dry-runs without a port (and without opening one it is given)', async () => {
    const { file } = await gcodeFile(7);
    const io = testIo();
    expect(await main(['stream', file, '--dry-run', '--json', '--baud', '115200'], io)).toBe(0);
    expect(json(io)).toEqual({ status: 'completed', commands: 7, total: 7, baudRate: 115200, dryRun: true });
    const given = testIo();
    expect(await main(['stream', file, '--dry-run', '--port', '/dev/towpath-no-such-port'], given)).toBe(0);
    expect(given.out.join('')).toBe('7 commands would be streamed (dry run; no port opened)\n');
  });

  it('pauses on Ctrl-C, asks, and resumes where it stopped', async () => {
    const { pair, fake } = await fakeOnPty({ ackDelayMs: 2 });
    const { file, commands } = await gcodeFile(200);
    const questions: string[] = [];
    let answer!: (text: string) => void;
    const io = testIo((question) => {
      questions.push(question);
      return new Promise((resolve) => {
        answer = resolve;
      });
    });
    const running = main(['stream', file, '--port', pair.near, '--json'], io);
    await fake.until(() => fake.commands.length >= 40, 10_000, '40 commands');
    io.signal('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const atPause = fake.commands.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(fake.commands.length).toBe(atPause);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(new RegExp(`Paus(ed|ing) after line ${atPause} of 200`));
    answer('r');
    expect(await running).toBe(0);
    expect(json(io)).toMatchObject({ status: 'completed', commands: 200 });
    expect(fake.commands).toEqual(commands);
  });

  it('cancels from the prompt at a line boundary and exits 130', async () => {
    const { pair, fake } = await fakeOnPty({ ackDelayMs: 2 });
    const { file, commands } = await gcodeFile(200);
    const io = testIo(async () => 'c');
    const running = main(['stream', file, '--port', pair.near, '--json'], io);
    await fake.until(() => fake.commands.length >= 20, 10_000, '20 commands');
    io.signal('SIGINT');
    expect(await running).toBe(130);
    const summary = json(io);
    expect(summary).toMatchObject({ status: 'cancelled', total: 200 });
    expect(summary.commands).toBeLessThan(200);
    expect(fake.commands).toEqual(commands.slice(0, summary.commands));
  });

  it('stops at once on Ctrl-C while connecting, sends nothing and exits 130', async () => {
    const { pair, fake } = await fakeOnPty();
    const { file } = await gcodeFile(20);
    const io = testIo();
    let opened!: () => void;
    const portOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    // A long boot wait: the handshake would take seconds, and Ctrl-C must not wait for it.
    io.machine = {
      timings: { bootIdleMs: 15_000, bootTotalMs: 15_000 },
      open: async (port, baudRate) => {
        const transport = await openSerialPort(port, baudRate);
        opened();
        return transport;
      },
    };
    const running = main(['stream', file, '--port', pair.near, '--json'], io);
    await portOpen;
    io.signal('SIGINT');
    expect(await running).toBe(130);
    expect(json(io)).toEqual(summaryOf('cancelled', 0, 20));
    expect(fake.lines).toEqual([]);
  });

  it('exits 3 with the controller error, and prints it in the JSON summary', async () => {
    const { pair, fake } = await fakeOnPty({
      react: ({ n }) => (n === 5 ? { kind: 'die', line: 'Error:Printer halted. kill() called!' } : undefined),
    });
    const { file, commands } = await gcodeFile(10);
    const io = testIo();
    expect(await main(['stream', file, '--port', pair.near, '--json'], io)).toBe(3);
    expect(json(io)).toEqual({
      status: 'error',
      commands: 4,
      total: 10,
      baudRate: 250000,
      dryRun: false,
      detail: 'Controller halted: Error:Printer halted. kill() called!',
    });
    expect(io.err.join('')).toContain('towpath: Controller halted: Error:Printer halted. kill() called!');
    expect(fake.commands).toEqual(commands.slice(0, 4));
  });

  it('refuses bad arguments, missing files and unsendable programs with distinct exit codes', async () => {
    const { file } = await gcodeFile(3);
    const cases: [string[], number, RegExp][] = [
      [['stream', file], 2, /--port is required unless --dry-run is given/],
      [['stream', file, '--port', '/dev/x', '--baud', 'fast'], 2, /--baud must be a positive integer/],
      [['stream', file, '--port', '/dev/x', '--timeout', '0'], 2, /--timeout must be a positive number/],
      [['stream', '/nonexistent/job.gcode', '--dry-run'], 2, /No file found at \/nonexistent\/job.gcode/],
      [
        ['stream', file, '--port', '/dev/towpath-no-such-port'],
        3,
        /Could not open serial port \/dev\/towpath-no-such-port/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const io = testIo();
      expect(await main(args, io), args.join(' ')).toBe(code);
      expect(io.err.join('')).toMatch(message);
    }
    const bad = join(await makeTempDir(), 'bad.gcode');
    await writeFile(bad, 'G0\nG1 X1*7\n');
    const io = testIo();
    expect(await main(['stream', bad, '--dry-run'], io)).toBe(1);
    expect(io.err.join('')).toBe(
      "towpath: Line 2: command contains '*', which is reserved for the checksum\n",
    );
  });

  it('streams a planned reference program as a real process', async () => {
    const { pair, fake } = await fakeOnPty();
    const file = join(REFERENCE_ROOT, 'simple_cylinder', 'expected-xab.gcode');
    const commands = prepareProgram(await readFile(file, 'latin1')).commands.map((c) => c.command);
    const child = streamProcess(file, pair.near);
    const finished = await child.finished;
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    expect(JSON.parse(finished.stdout)).toEqual({
      status: 'completed',
      commands: commands.length,
      total: commands.length,
      baudRate: 250000,
      dryRun: false,
    });
    expect(fake.commands).toEqual(commands);
  });
});

/** A controller that takes lines 1–2, then drops line 3 and only ever says `text` (§6.2 row 5a). */
function stallAtLine3(text = 'wait') {
  return fakeOnPty({
    react: ({ n, attempt }) => (n === 3 && attempt === 1 ? { kind: 'stall', everyMs: 50, text } : undefined),
  });
}

/** Proves the port was closed: serialport opens a tty exclusively, so a second open would fail. */
async function reopen(path: string) {
  const transport = await openSerialPort(path, 250000);
  await transport.close();
}

const lineThreeSent = (fake: { lines: string[] }) => () => fake.lines.some((line) => line.startsWith('N3 '));

describe('towpath stream against a controller that stops answering', () => {
  it('aborts on SIGTERM while a line is in flight: port closed, exit 130, the line named', async () => {
    const { pair, fake } = await stallAtLine3();
    const { file } = await gcodeFile(10);
    const io = testIo();
    const running = main(['stream', file, '--port', pair.near, '--json', '--timeout', '600'], io);
    await fake.until(lineThreeSent(fake), 10_000, 'line 3');
    io.signal('SIGTERM');
    expect(await running).toBe(130);
    expect(json(io)).toEqual(summaryOf('cancelled', 2, 10, { detail: 'Aborted while line 3 was in flight' }));
    expect(io.err.join('')).toContain('Aborted while line 3 was in flight\n');
    expect(fake.unframed).not.toContain('M112');
    await reopen(pair.near);
  });

  it('asks for a cancel on the first SIGINT without a terminal and aborts on the second (real process)', async () => {
    const { pair, fake } = await stallAtLine3();
    const { file } = await gcodeFile(10);
    const child = streamProcess(file, pair.near, '--timeout', '600');
    await fake.until(lineThreeSent(fake), 20_000, 'line 3');
    child.child.kill('SIGINT');
    await child.waitFor(/Cancelling after the line in flight/);
    child.child.kill('SIGINT');
    const finished = await child.finished;
    expect(finished.code).toBe(130);
    expect(finished.stderr).toContain('Aborted while line 3 was in flight\n');
    expect(JSON.parse(finished.stdout)).toMatchObject({
      status: 'cancelled',
      commands: 2,
      detail: 'Aborted while line 3 was in flight',
    });
    await reopen(pair.near);
  });

  it('asks at once on Ctrl-C while a line is in flight, and its e-stop goes out before the line ends', async () => {
    const { pair, fake } = await stallAtLine3('busy: processing');
    const { file } = await gcodeFile(10);
    const questions: string[] = [];
    const io = testIo(async (question) => {
      questions.push(question);
      // The question is up while line 3 is still unanswered.
      expect(fake.accepted.some((entry) => entry.n === 3)).toBe(false);
      return 'e';
    });
    const running = main(['stream', file, '--port', pair.near, '--json', '--timeout', '600'], io);
    await fake.until(lineThreeSent(fake), 10_000, 'line 3');
    io.signal('SIGINT');
    await fake.until(() => fake.estopAt !== undefined, 5000, 'M112');
    expect(await running).toBe(3);
    expect(questions[0]).toContain('Pausing after line 3 of 10, the line in flight');
    expect(json(io)).toMatchObject({ status: 'error', commands: 2, detail: 'Emergency stop' });
  });
});

/** `towpath stream` on a terminal, paused by Ctrl-C while line 3 is in flight, its prompt on screen. */
async function pausedOnTerminal(stallText?: string) {
  const { pair, fake } = await stallAtLine3(stallText);
  const { file } = await gcodeFile(10);
  const terminal = towpathOnTerminal(['stream', file, '--port', pair.near, '--timeout', '600']);
  cleanups.push(async () => terminal.kill());
  await fake.until(lineThreeSent(fake), 20_000, 'line 3');
  terminal.type('\x03');
  await terminal.shows(/Type r to resume, c to cancel, e for an emergency stop: /);
  return { pair, fake, terminal };
}

// Each test starts a pty pair, a fake controller and the CLI on a terminal, and waits up to 20 s for
// line 3: on a loaded 2-core machine that alone can pass the default 20 s test timeout.
describe('towpath stream on a terminal', { timeout: 60_000 }, () => {
  it('shows the prompt on Ctrl-C while the line is in flight; the key e alone puts M112 on the wire', async () => {
    const { fake, terminal } = await pausedOnTerminal('busy: processing');
    expect(terminal.screen()).toContain('Pausing after line 3 of 10, the line in flight');
    expect(fake.estopAt).toBeUndefined();
    // One key, no Enter: an operator reaching for the e-stop does not look for a second key.
    terminal.type('e');
    await fake.until(() => fake.estopAt !== undefined, 10_000, 'M112');
    expect(await terminal.exited).toBe(3);
    expect(fake.commands).toHaveLength(2);
  });

  it('hands the terminal back after r: the next Ctrl-C is a signal again and aborts the line in flight', async () => {
    const { fake, terminal } = await pausedOnTerminal();
    terminal.type('r');
    await terminal.shows(/emergency stop: r\r?\n/);
    // Were the terminal left raw, this Ctrl-C would be a byte nobody reads and the job would go on.
    terminal.type('\x03');
    expect(await terminal.exited).toBe(130);
    expect(terminal.screen()).toContain('Aborted while line 3 was in flight');
    expect(fake.unframed).not.toContain('M112');
  });

  it('aborts on a second Ctrl-C at the prompt: exit 130 within the job, port closed', async () => {
    const { pair, fake, terminal } = await pausedOnTerminal();
    terminal.type('\x03');
    expect(await terminal.exited).toBe(130);
    expect(terminal.screen()).toContain('Aborted while line 3 was in flight');
    expect(fake.unframed).not.toContain('M112');
    await reopen(pair.near);
  });
});
