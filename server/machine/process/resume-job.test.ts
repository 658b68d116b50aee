// The machine door's resume over real HTTP on loopback, the controller on a real pseudo-terminal
// with the fake Marlin at the far end: a job is e-stopped mid-way, the controller comes back, and
// the resumed job sends exactly the lead-in and then the program's tail from the suggested
// checkpoint. Bad requests get the documented errors and start nothing.
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MACHINE_ROUTES, type ResumeJobResponse } from '../../../engine/machine/contract.ts';
import { prepareProgram } from '../../../engine/machine/program.ts';
import { DEFAULT_QUEUE_DEPTH, suggestCheckpoint } from '../../../engine/machine/resume.ts';
import type { MachineStatus } from '../../../engine/machine/types.ts';
import { readCheckpoints } from '../../../engine/plan/checkpoints.ts';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import { createHttpApp } from '../../http/app.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../testing/pty-pair.ts';
import { MachineController } from './controller.ts';
import { JobHistory } from './job-history.ts';
import { openMachineDatabase } from './machine-db.ts';
import { machineRoutes } from './routes.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const PROGRAM = join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode');

async function serve() {
  const pair: PtyPair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const database = openMachineDatabase(await makeTempDir());
  cleanups.push(async () => database.close());
  const history = new JobHistory(database);
  const machine = new MachineController({ timings: { bootIdleMs: 50 }, history });
  cleanups.push(() => machine.close());
  const app: FastifyInstance = createHttpApp(pino({ level: 'silent' }), 'lan');
  await app.register(machineRoutes, { machine, allowRemote: () => false, allowedRoots: [tmpdir()], history });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const status = () => machine.status();
  last = status;
  const fake = async (on: PtyPair = pair, ackDelayMs = 1): Promise<FakeMarlinOnPort> => {
    const onPort = await attachFakeMarlin(on.far, { ackDelayMs });
    cleanups.push(() => onPort.close());
    return onPort;
  };
  return { pair, post, status, machine, fake, history };
}

let last: (() => unknown) | undefined;
async function until(check: () => boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last?.())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('POST /api/machine/resume-job', () => {
  it('after an e-stop, streams the lead-in and then the tail from the suggested checkpoint', async () => {
    const text = await readFile(PROGRAM, 'utf8');
    const all = prepareProgram(text).commands.map((c) => c.command);
    const { pair, post, status, fake, history } = await serve();
    const first = await fake();
    expect((await post(MACHINE_ROUTES.connect, { port: pair.near })).status).toBe(200);
    expect((await post(MACHINE_ROUTES.job, { gcode: text })).status).toBe(202);
    await first.fake.until(() => first.fake.commands.length >= 700, 20_000);
    expect((await post(MACHINE_ROUTES.estop)).body).toMatchObject({ sent: true });
    await until(() => status().state === 'error', 'the job to end');
    const acknowledged = (status().job as MachineStatus['job'] & object).acknowledged;
    expect(acknowledged).toBeGreaterThanOrEqual(650);

    // The controller is reset (a new pseudo-terminal: the old one still holds the halt message
    // for whoever reads it next) and answers again; the panel remembers how far the job got.
    expect((await post(MACHINE_ROUTES.disconnect)).status).toBe(200);
    await first.close();
    const replugged = await createPtyPair();
    cleanups.push(() => replugged.dispose());
    const second = await fake(replugged, 0);
    const again = await post(MACHINE_ROUTES.connect, { port: replugged.near });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // Connecting again cleared the controller's record of the stopped job: the job history says
    // how far it got and which job the resumed one continues.
    expect(status().job).toBeNull();
    const [stoppedRecord] = history.list({ limit: 1 });
    expect(stoppedRecord).toMatchObject({ outcome: 'e-stopped', acknowledged });
    // Another program (one byte more) is not the one that stopped: the history does not speak for it.
    const other = await post(MACHINE_ROUTES.resumeJob, {
      gcode: `${text}\n`,
      checkpoint: 'auto',
      towAttached: true,
    });
    expect(other).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/No stopped job is known here/) },
    });
    const answer = await post(MACHINE_ROUTES.resumeJob, {
      gcode: text,
      checkpoint: 'auto',
      towAttached: true,
    });
    expect(answer.status).toBe(202);
    const resumed = answer.body as unknown as ResumeJobResponse;
    const { checkpoints } = readCheckpoints(text);
    const suggested = suggestCheckpoint(checkpoints, acknowledged, DEFAULT_QUEUE_DEPTH);
    expect(resumed.checkpoint.index).toBe(suggested?.index);
    expect(resumed.continues).toBe(stoppedRecord?.id);
    expect(resumed.leadIn).toHaveLength(6);
    await until(() => status().state === 'completed', 'the resumed job to complete', 80_000);

    const from = resumed.checkpoint.command;
    expect(second.fake.commands).toEqual([...resumed.leadIn, ...all.slice(from)]);
    expect(resumed.total).toBe(resumed.leadIn.length + all.length - from);
    // What the first job certainly executed ends exactly where the resumed job's tail begins.
    expect(first.fake.commands.slice(0, from)).toEqual(all.slice(0, from));
    expect(from).toBeLessThanOrEqual(acknowledged - DEFAULT_QUEUE_DEPTH);
    // The history has the resumed job as a new job naming the one it continues.
    await until(() => history.list({ limit: 1 })[0]?.outcome === 'completed', 'the history to close the job');
    expect(history.list({ limit: 1 })[0]).toMatchObject({
      continues: stoppedRecord?.id,
      total: resumed.total,
    });
  }, 120_000);

  it('refuses bad requests with the reason and starts nothing', async () => {
    const text = await readFile(PROGRAM, 'utf8');
    const { pair, post, status, fake } = await serve();
    const onPort = await fake();
    expect((await post(MACHINE_ROUTES.connect, { port: pair.near })).status).toBe(200);
    const cases: [unknown, number, string | RegExp][] = [
      [
        { gcode: text, towAttached: true },
        400,
        'Invalid request body: checkpoint: must be auto or a checkpoint number',
      ],
      [
        { gcode: text, checkpoint: 'soon', towAttached: true },
        400,
        /checkpoint: must be auto or a checkpoint number/,
      ],
      [{ checkpoint: 'auto', towAttached: true }, 400, /gcode: give the program as gcode or as path/],
      [{ gcode: text, checkpoint: 1, towAttached: 'yes' }, 400, /towAttached: must be true or false/],
      [{ gcode: text, checkpoint: 'auto', towAttached: true }, 400, /No stopped job is known here/],
      [{ gcode: text, checkpoint: 2, towAttached: true, acknowledged: 900, continues: 0 }, 400, /continues/],
      [
        { gcode: text, checkpoint: 'auto', towAttached: true, acknowledged: 5 },
        400,
        /No checkpoint is certainly behind/,
      ],
      [
        { gcode: text, checkpoint: 999, towAttached: true, acknowledged: 900 },
        400,
        /No checkpoint 999: the program has \d+/,
      ],
      [
        { gcode: text, checkpoint: 3, towAttached: true, acknowledged: 30 },
        400,
        /Checkpoint 3 is after the last acknowledged command/,
      ],
      [
        { gcode: text, checkpoint: 'auto', towAttached: true, acknowledged: 10 ** 9 },
        400,
        /is it the program that stopped\?/,
      ],
      [
        {
          gcode: '; Parameters {"mandrel":{"diameter":70}}\nG0 F100\nG0 X1 A0 B0\n',
          checkpoint: 'auto',
          towAttached: true,
          acknowledged: 2,
        },
        400,
        /The program has no checkpoints/,
      ],
      [{ path: '/etc/passwd', checkpoint: 'auto', towAttached: true, acknowledged: 2 }, 403, /./],
    ];
    for (const [body, code, detail] of cases) {
      const answer = await post(MACHINE_ROUTES.resumeJob, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(code);
      expect(answer.body.detail).toMatch(detail);
    }
    expect(onPort.fake.commands).toEqual([]);
    expect(status().state).toBe('ready');

    // During a job: 409, as any other job start.
    expect((await post(MACHINE_ROUTES.job, { gcode: text })).status).toBe(202);
    const busy = await post(MACHINE_ROUTES.resumeJob, {
      gcode: text,
      checkpoint: 2,
      towAttached: false,
      acknowledged: 900,
    });
    expect(busy.status).toBe(409);
    expect((await post(MACHINE_ROUTES.cancel)).status).toBe(200);
  }, 60_000);
});
