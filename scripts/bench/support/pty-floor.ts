// The far end of the benchmarks' pseudo-terminal and its round-trip floor (spec/winding.md §6.6):
// a fake Marlin in a process and session of its own, and the rate of one line in flight with no
// protocol host at all. Used by suites/machine.ts (the host in the benchmark's own process) and
// machine-process.ts (the host in the machine process).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { frameLine, SYNC_FRAME } from '../../../engine/machine/program.ts';
import { openSerialPort } from '../../../server/machine/process/serial-transport.ts';
import { autogroupNice, leadsSession } from '../../../server/testing/nice.ts';
import { REPO_ROOT } from '../../../server/testing/process.ts';

/** Lines a streaming round sends. */
export const LINES = 3000;

export const command = (i: number) => `G0 X${(i * 0.1).toFixed(3)} A${(i * 7) % 360} B0`;

/**
 * The fake Marlin (fake-marlin-cli.ts) on a fresh pty pair; resolves to the path the host opens.
 * In a session of its own, as a controller is a computer of its own: in the benchmark's session it
 * would share one CPU share (autogroup) with the core and its load, and their CPU would slow the
 * controller's answers, which no real controller's are.
 */
export async function startFakeProcess(): Promise<{ path: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'server/machine/testing/fake-marlin-cli.ts')], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const path = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => reject(new Error('the fake Marlin exited before printing its port')));
  });
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };
  return { path, pid: child.pid as number, stop };
}

/**
 * One line in flight with no protocol host at all: write a framed line, wait for `ok`, repeat. On
 * the host's own serial transport, so the floor has the host's reads and writes (straight to the
 * descriptor) and nothing of its protocol: a floor read through slower I/O than the host's would
 * let the host beat it.
 */
export async function roundTripFloor(path: string, lines: number): Promise<number> {
  const port = await openSerialPort(path, 250000);
  let pending = '';
  let waiter: (() => void) | undefined;
  port.onData((text) => {
    pending += text;
    if (pending.includes('ok\n')) {
      pending = '';
      waiter?.();
    }
  });
  const exchange = (line: string) =>
    new Promise<void>((resolve) => {
      waiter = resolve;
      port.write(`${line}\n`);
    });
  await exchange(SYNC_FRAME);
  const started = performance.now();
  for (let i = 1; i <= lines; i++) await exchange(frameLine(i, command(i)));
  const seconds = (performance.now() - started) / 1000;
  await port.close();
  return lines / seconds;
}

/**
 * The floor measured by a process and session of its own (pty-floor-child.ts), as the machine
 * process is one: the CPU share it gets while the core is busy is the machine process's, not the
 * benchmark's. It lives until `stop`, and has measured a warm-up round before this resolves.
 */
export async function startFloorProcess(
  path: string,
): Promise<{ pid: number; measure: (lines: number) => Promise<number>; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/bench/support/pty-floor-child.ts'), path], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  let waiting: { resolve: (rate: number) => void; reject: (error: Error) => void } | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => waiting?.reject(new Error(`the floor process ended: ${err.trim()}`)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const end = out.indexOf('\n');
    if (end < 0) return;
    const rate = Number(out.slice(0, end));
    out = out.slice(end + 1);
    waiting?.resolve(rate);
  });
  const measure = (lines: number) =>
    new Promise<number>((resolve, reject) => {
      waiting = { resolve, reject };
      child.stdin.write(`${lines}\n`);
    });
  await measure(200);
  return {
    pid: child.pid as number,
    measure,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * Gives a process the CPU priority another one has: its main thread's nice and, as it leads its
 * session, its session's autogroup nice (Linux; see server/machine/process/priority.ts). The
 * machine process raises its own (MACHINE_NICE); the floor it is measured against must run at the
 * same priority, or the ratio would measure the priority rather than the host.
 */
export function matchPriority(pid: number, like: number): void {
  setPriority(pid, getPriority(like));
  const autogroup = autogroupNice(like);
  if (autogroup !== null) {
    if (!leadsSession(pid))
      throw new Error(`process ${pid} does not lead its session: its autogroup is not its own`);
    writeFileSync(`/proc/${pid}/autogroup`, String(autogroup));
  }
}
