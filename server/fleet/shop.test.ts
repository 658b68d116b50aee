// A whole shop on one machine: three `towpath serve` cores, each with a fake Marlin on a real pty,
// publishing to one Mosquitto set up exactly as docs/fleet.md says (TLS, passwords, ACL,
// persistence), watched by the read-only viewer. The deadlines are the acceptance checks of the fleet
// (births, live progress, clean stop, crash, hang, broker restart); what they measure is checked as
// deadlines of waits, never as benchmarks. One set of cores runs through the checks in order.
import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_ROUTES } from '../../engine/machine/contract.ts';
import { eventually } from '../../engine/testing/eventually.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../machine/testing/pty-pair.ts';
import type { FleetState } from './state.ts';
import { type Heard, type Observer, observe } from './testing/observer.ts';
import { type RecipeBroker, startRecipeBroker } from './testing/recipe-broker.ts';
import { startWinder, type Winder } from './testing/winder.ts';

type Core = Winder;

let broker: RecipeBroker;
let viewer: Observer;
const cores = new Map<string, Core>();
const pairs: PtyPair[] = [];
const marlins: FakeMarlinOnPort[] = [];
const everyWinder: Winder[] = [];

const topic = (id: string) => `towpath/v1/${id}/state`;
const ca = () => readFileSync(broker.caFile);
const viewerLogin = () => ({ username: 'viewer', password: broker.passwords.viewer as string, ca: ca() });
/** Heard after `mark` (an index into the viewer's list) on `id`'s topic and matching `match`. */
const after =
  (mark: number, id: string, match: (state: FleetState) => boolean) =>
  (h: Heard): boolean =>
    viewer.heard.indexOf(h) >= mark && h.topic === topic(id) && h.state !== null && match(h.state);

/** A winder for the whole file: the cores outlive each test. */
async function serve(id: string): Promise<Core> {
  const core = await startWinder(id, broker);
  everyWinder.push(core);
  cores.set(id, core);
  return core;
}

async function machine(core: Core, route: keyof typeof MACHINE_ROUTES, body?: unknown) {
  const response = await fetch(`${core.url}${MACHINE_ROUTES[route]}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A fake Marlin on a fresh pty pair, connected to `core`'s machine process. */
async function plugIn(core: Core, ackDelayMs = 0): Promise<void> {
  const pair = await createPtyPair();
  pairs.push(pair);
  marlins.push(await attachFakeMarlin(pair.far, { ackDelayMs }));
  const connect = await machine(core, 'connect', { port: pair.near, baudRate: 250000 });
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
}

/** About six seconds of winding at the fake Marlin's pace, in four layers. */
function program(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    if (i % (lines / 4) === 0) out.push(`; Layer ${i / (lines / 4) + 1} of 4: hoop`);
    out.push(`G1 X${(i % 100) + 1} F6000`);
  }
  return `${out.join('\n')}\n`;
}

beforeAll(async () => {
  broker = await startRecipeBroker();
  viewer = await observe(broker.url, 'towpath/v1/+/state', viewerLogin());
}, 30_000);

afterAll(async () => {
  await Promise.all(everyWinder.map((winder) => winder.dispose()));
  await Promise.all(marlins.map((m) => m.close().catch(() => {})));
  await Promise.all(pairs.map((p) => p.dispose()));
  await viewer?.end();
  await broker?.stop();
});

describe('three winders on the shop broker', () => {
  it('each is born online within 2 s of running, and each plugs in its controller', async () => {
    const started = await Promise.all(['w01', 'w02', 'w03'].map((id) => serve(id)));
    for (const core of started) {
      const birth = await viewer.next(
        after(0, core.id, (s) => s.online),
        2000 + 10_000,
      );
      expect(birth.receivedAt - core.runningAt).toBeLessThanOrEqual(2000);
      expect(birth.qos).toBe(1);
      expect(birth.state).toMatchObject({ workstationId: core.id, name: `Winder ${core.id.slice(1)}` });
    }
    for (const core of started) {
      const mark = viewer.heard.length;
      await plugIn(core, core.id === 'w01' ? 15 : 0);
      await viewer.next(
        after(mark, core.id, (s) => s.status === 'idle'),
        5000,
      );
    }
  }, 120_000);

  it('follows a job about once a second, its start and end within 200 ms', async () => {
    const w01 = cores.get('w01') as Core;
    const mark = viewer.heard.length;
    const path = join(w01.dataDir, 'vessel-a.gcode');
    await writeFile(path, program(400));
    const job = await machine(w01, 'job', { path });
    const acceptedAt = Date.now();
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const start = await viewer.next(
      after(mark, 'w01', (s) => s.status === 'running'),
      5000,
    );
    expect(start.receivedAt - acceptedAt).toBeLessThanOrEqual(200);
    const end = await viewer.next(
      after(mark, 'w01', (s) => s.machine?.jobState === 'completed'),
      60_000,
    );
    // The end goes at once: heard within 200 ms of the change it reports.
    expect(end.receivedAt - Date.parse(end.state?.machine?.updatedAt ?? '')).toBeLessThanOrEqual(200);
    // The layer comes from the job's layer comments, read in the machine process.
    expect(end.state).toMatchObject({
      status: 'idle',
      machine: { percent: 100, linesAcknowledged: 400, layer: 4, layerCount: 4, layerType: 'hoop' },
    });

    const during = viewer.heard.filter(after(viewer.heard.indexOf(start), 'w01', () => true));
    const streaming = during.slice(0, during.indexOf(end));
    expect(streaming.length).toBeGreaterThanOrEqual(4);
    const gaps = streaming.slice(1).map((h, i) => h.receivedAt - (streaming[i] as Heard).receivedAt);
    // Coalesced to one a second (a little early is the timer's jitter), and never silent for long.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(900);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(1500);
    const percents = streaming.map((h) => h.state?.machine?.percent ?? 0);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    // The layer follows the acknowledged line: never backwards, and past layer 1 before the end.
    const layers = streaming.map((h) => h.state?.machine?.layer ?? 0);
    expect([...layers].sort((a, b) => a - b)).toEqual(layers);
    expect(Math.max(...layers)).toBeGreaterThan(1);
    for (const h of [start, ...streaming, end]) expect(Buffer.byteLength(h.raw)).toBeLessThanOrEqual(4096);
  }, 90_000);

  it('lets nothing another client publishes into its subtree reach the workstation', async () => {
    const w01 = cores.get('w01') as Core;
    const before = await machine(w01, 'status');
    const mark = viewer.heard.length;
    // Someone holding w01's own credential: commands, a forged state, garbage.
    const intruder = await observe(broker.url, 'towpath/v1/w01/#', {
      username: 'w01',
      password: broker.passwords.w01 as string,
      ca: ca(),
    });
    for (const [suffix, payload] of [
      ['command', JSON.stringify({ type: 'job', gcode: 'G28\n' })],
      ['cmd/estop', 'M112'],
      ['state', JSON.stringify({ v: 1, workstationId: 'w01', online: false, status: 'offline' })],
      ['state', 'not json'],
    ] as const)
      await intruder.client.publishAsync(`towpath/v1/w01/${suffix}`, payload, { qos: 1 });
    await intruder.end();
    // Its state is the truth again within the interval, and its machine never heard a thing.
    const garbage = await viewer.next((h) => viewer.heard.indexOf(h) >= mark && h.raw === 'not json', 3000);
    const restored = await viewer.next(
      after(viewer.heard.indexOf(garbage) + 1, 'w01', (s) => s.online),
      3000,
    );
    expect(restored.state?.status).toBe('idle');
    const now = await machine(w01, 'status');
    expect(now.body.state).toBe(before.body.state);
    expect(now.body.job).toEqual(before.body.job);
    expect(w01.run.stderr()).not.toContain('fleet.conflict');
  }, 30_000);

  it('goes offline within 13.5 s when a core hangs (keepalive 5 s), and comes back after SIGCONT', async () => {
    const w03 = cores.get('w03') as Core;
    const mark = viewer.heard.length;
    w03.run.child.kill('SIGSTOP');
    const lost = await viewer.next(
      after(mark, 'w03', (s) => !s.online),
      13_500,
    );
    expect(lost.state?.reason).toBe('connection lost');
    w03.run.child.kill('SIGCONT');
    const back = await viewer.next(
      after(viewer.heard.indexOf(lost), 'w03', (s) => s.online),
      35_000,
    );
    expect(back.state?.status).toBe('idle');
  }, 60_000);

  it('says "shutdown" within 1 s of SIGTERM; a killed core’s will follows within 1 s', async () => {
    const w02 = cores.get('w02') as Core;
    let mark = viewer.heard.length;
    w02.run.child.kill('SIGTERM');
    const bye = await viewer.next(
      after(mark, 'w02', (s) => !s.online),
      1000,
    );
    expect(bye.state).toMatchObject({ status: 'offline', reason: 'shutdown', machine: null });
    expect((await w02.run.finished).code).toBe(0);

    // The same winder started again, then killed: the broker speaks for it.
    const again = await serve('w02');
    mark = viewer.heard.length;
    await viewer.next(
      after(mark, 'w02', (s) => s.online),
      2000 + 10_000,
    );
    mark = viewer.heard.length;
    again.run.child.kill('SIGKILL');
    const will = await viewer.next(
      after(mark, 'w02', (s) => !s.online),
      1000,
    );
    expect(will.state).toMatchObject({ status: 'offline', reason: 'connection lost', machine: null });
  }, 60_000);

  it('a broker killed and restarted: every live winder back within 40 s, the stopped one still offline', async () => {
    const willAt = Date.now();
    // The recipe saves every 5 s: the offline will is on disk once the file is newer than it.
    await eventually(() => {
      try {
        return statSync(broker.persistenceFile).mtimeMs > willAt;
      } catch {
        return false;
      }
    }, 15_000);
    const killedAt = Date.now();
    await broker.kill();
    await broker.restart();
    // A fresh viewer: what the broker kept across the restart, then the winders coming back.
    await viewer.end();
    viewer = await observe(broker.url, 'towpath/v1/+/state', viewerLogin());
    const w02 = await viewer.next((h) => h.topic === topic('w02'), 2000);
    expect(w02.retain).toBe(true);
    expect(w02.state).toMatchObject({ online: false, status: 'offline', reason: 'connection lost' });
    for (const id of ['w01', 'w03'])
      await viewer.next(
        after(0, id, (s) => s.online && Date.parse(s.at) >= killedAt),
        40_000,
      );
    // And the stopped one stays offline: nothing new came for it.
    expect(viewer.heard.filter((h) => h.topic === topic('w02') && h.state?.online)).toEqual([]);
  }, 90_000);
});
