// The machine process on its own: a job outlives a SIGKILLed core, an e-stop gets through while the
// core is frozen (SIGSTOP), and two cores on one data dir share one machine process. Real parts: a
// socat pseudo-terminal pair with the fake Marlin on the far end, cores as child processes.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { processExists } from '../../process-exists.ts';
import { autogroupNice, mayRaiseTo, threadNice } from '../../testing/nice.ts';
import { startNode } from '../../testing/process.ts';
import { makeTempDir, startTestWorkstation } from '../../testing/workstation.ts';
import { MachineLink } from '../link.ts';
import { attachFakeMarlin } from '../testing/fake-marlin-port.ts';
import { createPtyPair } from '../testing/pty-pair.ts';
import { EVENT_LOG_FILE } from './event-log.ts';
import { machineFilePath, readMachineFile } from './machine-file.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 2000, identifyIdleMs: 1000, idleTimeoutMs: 5000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function fakeOnPty(ackDelayMs: number) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, { ackDelayMs });
  cleanups.push(() => onPort.close());
  return { pair, fake: onPort.fake };
}

/** Ends a machine process a test caused to start, if it is still there (by its pid). */
function reap(dataDir: string) {
  cleanups.push(async () => {
    const record = await readMachineFile(dataDir);
    if (record && processExists(record.pid)) {
      process.kill(record.pid, 'SIGTERM');
      await expect.poll(() => processExists(record.pid), { timeout: 15_000 }).toBe(false);
    }
  });
}

/** `towpath serve` as a child process on a data dir; resolves with its LAN and machine URLs. */
async function startCore(root: string) {
  const core = startNode('server/testing/serve.ts', [], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: join(root, 'data'),
    LOG_LEVEL: 'silent',
    TOWPATH_TEST_MACHINE_TIMINGS: JSON.stringify(TIMINGS),
  });
  cleanups.push(async () => {
    if (core.child.exitCode === null && core.child.signalCode === null) {
      core.child.kill('SIGCONT');
      core.child.kill('SIGKILL');
    }
    await core.finished;
  });
  const [, lan, machine] = (await core.waitFor(/listening (\S+) (\S+)/)) as string[];
  return { core, lan: lan as string, machine: machine as string };
}

const post = (url: string, body: unknown = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const program = (lines: number) => Array.from({ length: lines }, (_, i) => `G0 X${i} A${i % 360}`);

describe('the machine process', () => {
  it('keeps a job running when the core is killed, and a new core attaches and shows it completed', async () => {
    const { pair, fake } = await fakeOnPty(1);
    const root = await makeTempDir();
    const dataDir = join(root, 'data');
    reap(dataDir);
    const first = await startCore(root);
    const record = await readMachineFile(dataDir);
    expect(record).toMatchObject({ url: first.machine });
    expect((await stat(machineFilePath(dataDir))).mode & 0o777).toBe(0o600);
    // MACHINE_NICE's default, on its thread and its own session's autogroup, where this user may.
    if (process.platform === 'linux' && record) {
      const nice = mayRaiseTo(-10) ? -10 : 0;
      expect([threadNice(record.pid), autogroupNice(record.pid)]).toEqual([nice, nice]);
      expect(autogroupNice(first.core.child.pid as number)).toBe(autogroupNice('self'));
    }

    expect((await post(`${first.lan}/api/machine/connect`, { port: pair.near })).status).toBe(200);
    const lines = program(1000);
    const started = await post(`${first.lan}/api/machine/job`, { gcode: lines.join('\n') });
    expect(started.status).toBe(202);
    await fake.until(() => fake.commands.length >= 50, 10_000);
    first.core.child.kill('SIGKILL');
    expect((await first.core.finished).signal).toBe('SIGKILL');
    // The core is gone mid-job; the job is not.
    expect(fake.commands.length).toBeLessThan(lines.length);

    await fake.until(() => fake.commands.length >= lines.length, 60_000, 'the job to finish');
    expect(fake.commands).toEqual(lines);

    const second = await startTestWorkstation({}, { root, machine: { timings: TIMINGS } });
    cleanups.push(() => second.dispose());
    expect(second.machine.pid).toBe(record?.pid);
    expect(second.urls.machine).toBe(record?.url);
    await expect
      .poll(async () => (await fetch(`${second.urls.lan}/api/machine/status`)).json(), { timeout: 10_000 })
      .toMatchObject({ state: 'completed', job: { acknowledged: 1000, total: 1000 } });
    // Nothing was sent twice after the new core attached.
    expect(fake.commands).toEqual(lines);

    // Idle and left by its last core, the machine process exits, leaving its last events: the
    // whole job (under 1,000 events, as its progress counts once), in order, with where it got to.
    await second.dispose();
    await expect.poll(() => processExists(record?.pid ?? 0), { timeout: 15_000 }).toBe(false);
    expect(await readMachineFile(dataDir)).toBeNull();
    const logged = (await readFile(join(dataDir, EVENT_LOG_FILE), 'utf8')).trimEnd().split('\n');
    const entries = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    const seqs = entries.map((entry) => entry.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(entries[0]).toMatchObject({ type: 'state', state: 'connecting' });
    expect(entries.filter((entry) => entry.type === 'state').map((entry) => entry.state)).toEqual([
      'connecting',
      'ready',
      'streaming',
      'completed',
      'idle',
    ]);
    expect(entries.filter((entry) => entry.type === 'progress')).toEqual([
      expect.objectContaining({ acknowledged: 1000, total: 1000 }),
    ]);
    expect(entries.find((entry) => entry.type === 'complete')).toMatchObject({
      acknowledged: 1000,
      total: 1000,
    });
    // Its exit closed the port: the last word is the state that left.
    expect(entries.at(-1)).toMatchObject({ type: 'state', state: 'idle' });
  });

  it('is restarted by the core when it dies, which says where the job stopped', async () => {
    const { pair, fake } = await fakeOnPty(2);
    const ws = await startTestWorkstation({}, { machine: { timings: TIMINGS } });
    cleanups.push(() => ws.dispose());
    reap(ws.dataDir);
    const events: MachineEvent[] = [];
    ws.machine.subscribe((event) => events.push(event));
    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: program(5000).join('\n') });
    await fake.until(() => fake.commands.length >= 100, 10_000);
    await expect.poll(() => ws.machine.status().job?.acknowledged ?? 0).toBeGreaterThan(0);
    const crashed = ws.machine.pid as number;
    process.kill(crashed, 'SIGKILL');

    await expect
      .poll(() => events.find((event) => event.type === 'error'), { timeout: 15_000 })
      .toBeDefined();
    const error = events.find((event) => event.type === 'error') as { message: string };
    const line = Number(
      /^Machine process ended unexpectedly; the job stopped at line (\d+)$/.exec(error.message)?.[1],
    );
    expect(line).toBeGreaterThan(0);
    expect(line).toBeLessThanOrEqual(fake.commands.length);
    await expect
      .poll(() => ws.machine.pid !== crashed && processExists(ws.machine.pid ?? 0), { timeout: 30_000 })
      .toBe(true);
    await expect.poll(async () => (await fetch(`${ws.urls.lan}/api/machine/status`)).status).toBe(200);
    expect(await readMachineFile(ws.dataDir)).toMatchObject({ pid: ws.machine.pid });
  });

  it('takes an e-stop on its own door while the core is frozen (SIGSTOP)', async () => {
    const { pair, fake } = await fakeOnPty(5);
    const root = await makeTempDir();
    reap(join(root, 'data'));
    const core = await startCore(root);
    expect((await post(`${core.lan}/api/machine/connect`, { port: pair.near })).status).toBe(200);
    expect((await post(`${core.lan}/api/machine/job`, { gcode: program(5000).join('\n') })).status).toBe(202);
    await fake.until(() => fake.commands.length >= 20, 10_000);

    core.core.child.kill('SIGSTOP');
    // The core cannot answer anything now: its LAN door holds the request.
    const lanStatus = fetch(`${core.lan}/api/machine/status`, { signal: AbortSignal.timeout(60_000) });
    const stopped = await post(`${core.machine}/api/machine/estop`);
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toMatchObject({
      sent: true,
      status: { state: 'error', message: 'Emergency stop' },
    });
    await fake.until(() => fake.estopAt !== undefined, 5000, 'M112');
    expect(fake.unframed).toContain('M112');
    core.core.child.kill('SIGCONT');
    expect(await (await lanStatus).json()).toMatchObject({ state: 'error', message: 'Emergency stop' });
  });

  it('is shared by two cores on one data dir: one process, one port, and 409 for a second job from either', async () => {
    const { pair } = await fakeOnPty(5);
    const root = await makeTempDir();
    const dataDir = join(root, 'data');
    reap(dataDir);
    const logger = pino({ level: 'silent' });
    const settings = { port: 0, remoteControl: false, allowedRoots: [root], logLevel: 'silent' };
    // Started at the same moment: exactly one of them starts the machine process.
    const links = [0, 1].map(() => new MachineLink({ dataDir, logger, settings, timings: TIMINGS }));
    await mkdir(dataDir, { recursive: true });
    await Promise.all(links.map((link) => link.start()));
    for (const link of links) cleanups.push(() => link.stop());
    const [a, b] = links as [MachineLink, MachineLink];
    expect(a.pid).toBeDefined();
    expect(b.pid).toBe(a.pid);
    expect(b.url).toBe(a.url);

    // Two whole cores on the same data dir attach to that same process.
    const coreA = await startTestWorkstation({}, { root, machine: { timings: TIMINGS } });
    cleanups.push(() => coreA.dispose());
    const coreB = await startTestWorkstation({}, { root, machine: { timings: TIMINGS } });
    cleanups.push(() => coreB.dispose());
    expect([coreA.machine.pid, coreB.machine.pid]).toEqual([a.pid, a.pid]);

    await a.connect(pair.near, 250000);
    const gcode = program(3000).join('\n');
    expect((await post(`${coreA.urls.lan}/api/machine/job`, { gcode })).status).toBe(202);
    const fromB = await post(`${coreB.urls.lan}/api/machine/job`, { gcode });
    expect([fromB.status, await fromB.json()]).toEqual([409, { detail: 'Machine is busy with another job' }]);
    const fromA = await post(`${coreA.urls.lan}/api/machine/job`, { gcode });
    expect(fromA.status).toBe(409);
    await expect(b.startJob({ gcode })).rejects.toThrow(MachineStateError);
    const streamB = await post(`${coreB.urls.winding}/stream/`, { gcode, port: pair.near, dry_run: false });
    expect([streamB.status, await streamB.json()]).toEqual([
      409,
      { detail: 'Machine is busy with another job' },
    ]);
    // A port opened twice would fail the second open; the one connection is the first one.
    expect(a.status()).toMatchObject({ port: pair.near });
    await a.emergencyStop();
  });
});
