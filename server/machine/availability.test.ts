// Machine routes while no machine process is attached: while the core starts, while a new one starts
// after a crash, and when none can start. Always 503 with a reason (and Retry-After while one is on
// its way), never 500; the core says it is ready only once one is attached. Real parts: a core in
// this process, the machine process as a child (its entry held back by a gate file where a test
// needs the window open), real HTTP on loopback.
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../bridge/version.ts';
import { MACHINE_ROUTES } from '../../engine/machine/contract.ts';
import { processExists } from '../process-exists.ts';
import { freePort } from '../testing/free-port.ts';
import { makeTempDir, startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { STARTING_MESSAGE } from './link.ts';
import { readMachineFile } from './process/machine-file.ts';

const GATED_ENTRY = new URL('./testing/gated-entry.ts', import.meta.url).pathname;

/** A test workstation's folder whose machine process waits at its gate until `open()`. */
async function gatedRoot(open: boolean) {
  const root = await makeTempDir();
  const dataDir = join(root, 'data');
  await mkdir(dataDir, { mode: 0o700 });
  const gate = join(dataDir, 'machine-gate');
  if (open) await writeFile(gate, '');
  return {
    root,
    open: () => writeFile(gate, ''),
    close: () => rm(gate),
    options: { root, machine: { entry: GATED_ENTRY } },
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function track(ws: TestWorkstation) {
  cleanups.push(async () => {
    const record = await readMachineFile(ws.dataDir);
    await ws.dispose();
    if (record && processExists(record.pid)) process.kill(record.pid, 'SIGKILL');
  });
  return ws;
}

async function answer(url: string, init?: RequestInit) {
  const response = await fetch(url, init);
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };

/** What a machine route answers while no machine process is attached but one is on its way. */
const STARTING = { status: 503, retryAfter: '1', body: { detail: STARTING_MESSAGE } };

describe('machine routes without an attached machine process', () => {
  it('answer 503 "starting" while the core starts, which says it is ready only once one is attached', async () => {
    const port = await freePort();
    const lan = `http://127.0.0.1:${port}`;
    const gated = await gatedRoot(false);
    let started: TestWorkstation | undefined;
    const starting = startTestWorkstation({ PORT: String(port) }, gated.options).then((ws) => {
      started = track(ws);
      return ws;
    });
    // The LAN door listens while the machine process is held back at its gate.
    await expect
      .poll(
        () =>
          fetch(`${lan}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: 15_000, interval: 20 },
      )
      .toBe(503);
    expect(await answer(`${lan}/healthz`)).toEqual({
      status: 503,
      retryAfter: '1',
      body: { status: 'starting', version: VERSION },
    });
    expect(await answer(`${lan}${MACHINE_ROUTES.status}`)).toEqual(STARTING);
    expect(await answer(`${lan}${MACHINE_ROUTES.ports}`)).toEqual(STARTING);
    expect(await answer(`${lan}${MACHINE_ROUTES.estop}`, post)).toEqual(STARTING);
    expect(await answer(`${lan}/api/machine/door`)).toEqual(STARTING);
    expect(started).toBeUndefined();
    expect(existsSync(join(gated.root, 'data', 'machine.json'))).toBe(false);
    expect(existsSync(join(gated.root, 'data', 'workstation.json'))).toBe(false);

    await gated.open();
    const ws = await starting;
    expect(existsSync(join(ws.dataDir, 'machine.json'))).toBe(true);
    expect(existsSync(join(ws.dataDir, 'workstation.json'))).toBe(true);
    expect((await answer(`${lan}/healthz`)).status).toBe(200);
    const status = await answer(`${lan}${MACHINE_ROUTES.status}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ state: 'idle' });
  });

  it('answer 503 "starting" while a new one starts after a crash, then 200 again; never 500', async () => {
    const gated = await gatedRoot(true);
    const ws = track(await startTestWorkstation({}, gated.options));
    const lan = ws.urls.lan;
    const first = await readMachineFile(ws.dataDir);
    expect(first).not.toBeNull();
    // The next machine process waits at the gate until the test has seen the window.
    await gated.close();
    process.kill(first?.pid as number, 'SIGKILL');

    const seen = new Set<number>();
    const until = async (want: (a: Awaited<ReturnType<typeof answer>>) => boolean) => {
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const a = await answer(`${lan}${MACHINE_ROUTES.status}`);
        seen.add(a.status);
        if (want(a)) return a;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no such answer within 15 s (seen ${[...seen].join(', ')})`);
    };
    expect(await until((a) => a.body.detail === STARTING_MESSAGE)).toEqual(STARTING);
    expect((await answer(`${lan}${MACHINE_ROUTES.cancel}`, post)).status).toBe(503);
    // The core stays ready: the LAN door and GraphQL go on; only the machine is on its way.
    expect((await answer(`${lan}/healthz`)).status).toBe(200);

    await gated.open();
    const back = await until((a) => a.status === 200);
    // Answered by the new machine process, which has no job.
    expect(back.body).toMatchObject({ state: 'idle', job: null });
    const second = await readMachineFile(ws.dataDir);
    expect(second?.pid).not.toBe(first?.pid);
    expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);
  });

  it('answer 503 with the reason when no machine process can start, and the core starts anyway', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const taken = (blocker.address() as { port: number }).port;
    const ws = track(await startTestWorkstation({ MACHINE_PORT: String(taken) }));
    expect((await answer(`${ws.urls.lan}/healthz`)).status).toBe(200);
    const refused = await answer(`${ws.urls.lan}${MACHINE_ROUTES.status}`);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBeNull();
    expect(refused.body.detail).toMatch(
      new RegExp(`^The machine process could not start: .*127\\.0\\.0\\.1:${taken}.*already in use`),
    );
    expect(ws.machine.problem).toBe(refused.body.detail);
    // The winding door's machine calls say the same.
    const stream = await answer(`${ws.urls.winding}/stream/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ gcode: 'G0 X1', port: '/dev/null', dry_run: false }),
    });
    expect(stream).toEqual({ status: 503, retryAfter: null, body: { detail: refused.body.detail } });

    const missing = track(await startTestWorkstation({}, { machine: { entry: '/nonexistent/machine.mjs' } }));
    const gone = await answer(`${missing.urls.lan}${MACHINE_ROUTES.status}`);
    expect(gone.status).toBe(503);
    expect(gone.body.detail).toMatch(/^The machine process exited while starting \(code 1\)/);
  });
});
