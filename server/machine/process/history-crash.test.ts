// The job history is the machine process's: a core killed mid-job leaves the job to finish and be
// recorded as completed; a machine process killed mid-job leaves a row that the next machine
// process closes as "machine process died", with where it got to. Real parts: cores as child
// processes, the machine process they start, the fake Marlin on a socat pseudo-terminal pair.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../engine/machine/job-record.ts';
import { processExists } from '../../process-exists.ts';
import { startNode } from '../../testing/process.ts';
import { makeTempDir, removeTempDir } from '../../testing/workstation.ts';
import { attachFakeMarlin } from '../testing/fake-marlin-port.ts';
import { createPtyPair } from '../testing/pty-pair.ts';
import { PROGRESS_WRITE_MS } from './job-history.ts';
import { readMachineFile } from './machine-file.ts';

const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 2000, identifyIdleMs: 1000, idleTimeoutMs: 5000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function setUp(ackDelayMs: number) {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const { fake, close } = await attachFakeMarlin(pair.far, { ackDelayMs });
  cleanups.push(close);
  const root = await makeTempDir();
  cleanups.push(() => removeTempDir(root));
  const dataDir = join(root, 'data');
  // Whatever machine process the test left (the first, or the one started after a crash) ends.
  cleanups.push(async () => {
    const record = await readMachineFile(dataDir);
    if (record && processExists(record.pid)) {
      process.kill(record.pid, 'SIGTERM');
      await expect.poll(() => processExists(record.pid), { timeout: 15_000 }).toBe(false);
    }
  });
  const core = () => {
    const running = startNode('server/testing/serve.ts', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      WINDING_PORT: '0',
      MACHINE_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      TOWPATH_TEST_MACHINE_TIMINGS: JSON.stringify(TIMINGS),
    });
    cleanups.push(async () => {
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
      await running.finished;
    });
    return running;
  };
  return { pair, fake, dataDir, core };
}

const post = (url: string, body: unknown = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const lines = (count: number) => Array.from({ length: count }, (_, i) => `G0 X${i % 90} A${i}`).join('\n');
const jobsAt = async (base: string) =>
  ((await (await fetch(`${base}/api/machine/jobs`)).json()) as { jobs: JobRecord[] }).jobs;

describe('the job history across crashes', () => {
  it('records a job as completed although the core that started it was killed', async () => {
    const { pair, fake, dataDir, core } = await setUp(1);
    const first = core();
    const [, lan] = (await first.waitFor(/listening (\S+) (\S+)/)) as string[];
    expect((await post(`${lan}/api/machine/connect`, { port: pair.near })).status).toBe(200);
    expect((await post(`${lan}/api/machine/job?name=outlives.gcode`, { gcode: lines(1000) })).status).toBe(
      202,
    );
    await fake.until(() => fake.commands.length >= 50, 10_000);
    first.child.kill('SIGKILL');
    await first.finished;
    await fake.until(() => fake.commands.length >= 1000, 60_000, 'the job to finish');

    // No core is attached: the machine door itself answers.
    const record = await readMachineFile(dataDir);
    await expect
      .poll(async () => (await jobsAt(record?.url as string))[0], { timeout: 10_000 })
      .toMatchObject({ program: 'outlives.gcode', outcome: 'completed', acknowledged: 1000, total: 1000 });
  });

  it('closes a job whose machine process was killed as "machine process died" when the next one starts', async () => {
    const { pair, fake, dataDir, core } = await setUp(2);
    const running = core();
    const [, lan] = (await running.waitFor(/listening (\S+) (\S+)/)) as string[];
    expect((await post(`${lan}/api/machine/connect`, { port: pair.near })).status).toBe(200);
    expect((await post(`${lan}/api/machine/job?name=cut-off.gcode`, { gcode: lines(5000) })).status).toBe(
      202,
    );
    await fake.until(() => fake.commands.length >= 100, 10_000);
    // Long enough for at least one progress write after the first lines.
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_WRITE_MS * 1.5));
    const record = await readMachineFile(dataDir);
    const before = (await jobsAt(record?.url as string))[0];
    expect(before).toMatchObject({ program: 'cut-off.gcode', outcome: 'running' });
    process.kill(record?.pid as number, 'SIGKILL');

    // The core starts a new machine process, which finds the row left running.
    await expect
      .poll(
        async () => {
          const answer = await fetch(`${lan}/api/machine/jobs`);
          return answer.status === 200 ? ((await answer.json()) as { jobs: JobRecord[] }).jobs[0] : undefined;
        },
        { timeout: 30_000 },
      )
      .toMatchObject({ program: 'cut-off.gcode', outcome: 'machine process died' });
    const [died] = await jobsAt(lan as string);
    expect(died?.acknowledged).toBeGreaterThan(0);
    expect(died?.acknowledged).toBeLessThan(5000);
    expect(died?.lastAcknowledgedLine).toBe(died?.acknowledged);
    expect(died?.reason).toMatch(
      /^The machine process ended while the job ran; found when the next one started at /,
    );
    expect((await readMachineFile(dataDir))?.pid).not.toBe(record?.pid);
  });
});
