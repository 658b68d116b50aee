// `towpath estop` and `towpath stream` against a running workstation: both go to its machine
// process (found through machine.json), as real child processes, over a real pseudo-terminal pair.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { runNode } from '../testing/process.ts';
import { makeTempDir, startTestWorkstation } from '../testing/workstation.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 2000, identifyIdleMs: 1000, idleTimeoutMs: 5000 };
const CLI = 'server/cli.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function rig(ackDelayMs: number) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far, { ackDelayMs });
  cleanups.push(() => onPort.close());
  const ws = await startTestWorkstation({}, { machine: { timings: TIMINGS } });
  cleanups.push(() => ws.dispose());
  return { pair, fake: onPort.fake, ws, env: { TOWPATH_DATA_DIR: ws.dataDir } };
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `G0 X${i} A${i % 360}`);

describe('towpath estop', () => {
  it('stops a running job through the machine process, and says so', async () => {
    const { pair, fake, ws, env } = await rig(5);
    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: lines(5000).join('\n') });
    await fake.until(() => fake.commands.length >= 10, 10_000);

    const stopped = await runNode(CLI, ['estop'], env);
    expect(stopped).toMatchObject({
      code: 0,
      stdout: 'Emergency stop sent (M112): the controller halts; reset it before the next job.\n',
    });
    expect(fake.unframed).toContain('M112');
    await expect.poll(() => ws.machine.status()).toMatchObject({ state: 'error', message: 'Emergency stop' });

    // Nothing left connected: exit 1, and the JSON form for scripts.
    expect(await runNode(CLI, ['estop', '--json'], env)).toMatchObject({
      code: 1,
      stdout: `${JSON.stringify({ sent: false, state: 'error' })}\n`,
    });
  });

  it('says plainly when no machine process runs for the data dir', async () => {
    const dataDir = await makeTempDir();
    expect(await runNode(CLI, ['estop'], { TOWPATH_DATA_DIR: dataDir })).toMatchObject({
      code: 3,
      stderr: `towpath: no machine process is running for the data dir ${dataDir}\n`,
    });
    expect((await runNode(CLI, ['estop', '--now'], { TOWPATH_DATA_DIR: dataDir })).code).toBe(2);
  });
});

describe('towpath stream with a workstation running', () => {
  it('streams through the machine process, and gets 409 while it runs another job', async () => {
    const { pair, fake, ws, env } = await rig(1);
    const dir = await makeTempDir();
    const file = join(dir, 'job.gcode');
    await writeFile(file, `; job\n${lines(300).join('\n')}\n`);

    const done = await runNode(CLI, ['stream', file, '--port', pair.near, '--json'], env);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({
      status: 'completed',
      commands: 300,
      total: 300,
      baudRate: 250000,
      dryRun: false,
    });
    expect(fake.commands).toEqual(lines(300));
    // It went through the workstation's machine process: the workstation saw the job.
    await expect.poll(() => ws.machine.status().job).toMatchObject({ acknowledged: 300, total: 300 });

    await ws.machine.connect(pair.near, 250000);
    await ws.machine.startJob({ gcode: lines(5000).join('\n') });
    const refused = await runNode(CLI, ['stream', file, '--port', pair.near], env);
    expect(refused).toMatchObject({ code: 3, stderr: 'towpath: Machine is busy with another job\n' });
    await ws.machine.emergencyStop();
  });
});
