// `towpath stream` against the fake Marlin on a real pseudo-terminal pair: in process (to drive
// Ctrl-C and the prompt) and once as a real child process streaming a planned reference program.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareProgram } from '../../engine/machine/program.ts';
import { main } from '../cli.ts';
import { openSerialPort } from '../machine/serial-transport.ts';
import type { FakeMarlinOptions } from '../machine/testing/fake-marlin.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { type RecordingIo, recordingIo } from '../testing/cli-io.ts';
import { REPO_ROOT, startNode } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';
import type { StreamIo } from './stream.ts';

const REFERENCE = new URL('../../../shared/reference/winding/', import.meta.url).pathname;

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
    expect(questions[0]).toMatch(new RegExp(`Paused after line ${atPause} of 200`));
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
    expect(json(io)).toEqual({
      status: 'cancelled',
      commands: 0,
      total: 20,
      baudRate: 250000,
      dryRun: false,
    });
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
    const file = join(REFERENCE, 'simple_cylinder', 'expected-xab.gcode');
    const commands = prepareProgram(await readFile(file, 'latin1')).commands.map((c) => c.command);
    const child = startNode(join(REPO_ROOT, 'server/cli.ts'), [
      'stream',
      file,
      '--port',
      pair.near,
      '--json',
    ]);
    cleanups.push(async () => child.child.kill('SIGKILL'));
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
