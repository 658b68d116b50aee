// The winding door's planner threads: the same answers as planning in place, on a thread below the
// main thread's priority, stopped by the door's close, errors carried back with their status.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../http/http-error.ts';
import { createPathPolicy } from '../http/paths.ts';
import { longDefinition } from '../testing/wind.ts';
import { planFromFile, validateFromFile } from './from-file.ts';
import { PlannerThreads } from './planner-threads.ts';
import { Slots } from './slots.ts';

/** Over 100,000 lines: long enough to be seen running. */
const LONG = longDefinition(1500, [35, 30, 35]);

/** A plan request as the door's schema completes it. */
const plan = (path: string) => ({ path, axis_format: 'xab' as const, verbose: false });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setUp() {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'towpath-planner-threads-')));
  const threads = new PlannerThreads([root]);
  closers.push(() => threads.close());
  const long = join(root, 'long.wind');
  await writeFile(long, JSON.stringify(LONG));
  return { root, threads, long, policy: await createPathPolicy([root]) };
}

/** Nice value and scheduling policy of this process's threads but the main one (Linux). */
function otherThreads(): { nice: number; policy: number }[] {
  return readdirSync('/proc/self/task')
    .filter((tid) => Number(tid) !== process.pid)
    .map((tid) => {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return { nice: Number(fields[16]), policy: Number(fields[38]) };
    });
}
const otherThreadsNice = () => otherThreads().map((thread) => thread.nice);
/** SCHED_IDLE, set through util-linux's chrt where it is installed (Debian: always). */
const SCHED_IDLE = 5;

describe('planner threads', () => {
  it('plan and validate give what planning in place gives, on a thread at nice 19 and SCHED_IDLE', async () => {
    const { root, threads, long, policy } = await setUp();
    const noted: string[] = [];
    const onThread = {
      policy,
      planners: new Slots(4),
      threads,
      noteOutputFolder: async (folder: string) => {
        noted.push(folder);
      },
    };
    const running = planFromFile(plan(long), onThread);
    if (process.platform === 'linux') {
      await expect.poll(otherThreadsNice, { timeout: 10_000, interval: 20 }).toContain(19);
      if (existsSync('/usr/bin/chrt')) {
        await expect
          .poll(otherThreads, { timeout: 10_000, interval: 20 })
          .toContainEqual({ nice: 19, policy: SCHED_IDLE });
      }
      // The main thread keeps its priority.
      expect(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ')[16]).toBe('0');
    }
    const threaded = await running;
    const threadedBytes = await readFile(join(root, 'long.gcode'));
    expect(noted).toEqual([root]);

    const inPlace = await planFromFile(plan(long), { policy, planners: new Slots(4) });
    expect(threaded).toEqual(inPlace);
    expect(threaded.commands).toBeGreaterThan(100_000);
    expect(await readFile(join(root, 'long.gcode'))).toEqual(threadedBytes);

    expect(await validateFromFile({ path: long }, onThread)).toEqual({ status: 'ok', path: long });
  });

  it('carries errors back with the status the door answers with', async () => {
    const { root, threads, policy } = await setUp();
    const context = { policy, planners: new Slots(4), threads };
    await writeFile(join(root, 'bad.wind'), '{"layers": [');
    const bad = validateFromFile({ path: join(root, 'bad.wind') }, context);
    await expect(bad).rejects.toBeInstanceOf(HttpError);
    await expect(bad).rejects.toMatchObject({ status: 400 });
    await expect(planFromFile(plan(join(root, 'none.wind')), context)).rejects.toMatchObject({
      status: 404,
    });
    // The thread that answered with an error serves the next run.
    await writeFile(join(root, 'ok.wind'), readFileSync('resources/examples/simple-cylinder.wind'));
    expect(await validateFromFile({ path: join(root, 'ok.wind') }, context)).toMatchObject({ status: 'ok' });
  });

  it('stops a run when the door closes, leaving no output file, and refuses runs after', async () => {
    const { root, threads, long, policy } = await setUp();
    const stopping = new AbortController();
    const context = { policy, planners: new Slots(4), threads, stopping: stopping.signal };
    const running = planFromFile(plan(long), context);
    if (process.platform === 'linux') await expect.poll(otherThreadsNice, { timeout: 10_000 }).toContain(19);
    stopping.abort(new Error('the server is stopping'));
    await expect(running).rejects.toThrow('the server is stopping');
    expect((await readdir(root)).sort()).toEqual(['long.wind']);

    await threads.close();
    await expect(
      validateFromFile({ path: long }, { policy, planners: new Slots(4), threads }),
    ).rejects.toThrow('the server is stopping');
  });
});
