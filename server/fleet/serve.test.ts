// Whole `towpath serve` processes publishing to a real Mosquitto: what a shop sees when a winder's
// core stops cleanly, and when it dies without a word.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../engine/testing/eventually.ts';
import { type Mosquitto, startMosquitto } from '../testing/mosquitto.ts';
import { type Running, startNode } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { type Observer, observe } from './testing/observer.ts';

const PASSWORD = 'fleet-password-that-must-never-be-logged';

let broker: Mosquitto;
let viewer: Observer;
beforeAll(async () => {
  broker = await startMosquitto();
  viewer = await observe(broker.url, 'towpath/v1/+/state');
});
afterAll(async () => {
  await viewer?.end();
  await broker?.stop();
});

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGKILL');
});

async function serve(workstationId: string, env: Record<string, string> = {}) {
  const dataDir = await makeTempDir();
  const r = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    FLEET_BROKER_URL: broker.url,
    FLEET_WORKSTATION_ID: workstationId,
    FLEET_PASSWORD: PASSWORD,
    ...env,
  });
  running.push(r);
  await r.waitFor(/is running\./);
  return { r, dataDir };
}

describe('towpath serve on the fleet broker', () => {
  it('is born online, says "shutdown" on SIGTERM, and its will speaks after SIGKILL', async () => {
    const [term, kill] = await Promise.all([serve('term-1'), serve('kill-1')]);
    const topic = (id: string) => `towpath/v1/${id}/state`;
    for (const id of ['term-1', 'kill-1']) {
      // Published as soon as the core is ready: by the time it says it runs, or within 2 s after.
      const birth = await viewer.next((h) => h.topic === topic(id) && h.state?.online === true, 2000);
      expect(birth.qos).toBe(1);
      expect(birth.state).toMatchObject({ workstationId: id, status: 'disconnected' });
      expect(birth.state?.machine).toMatchObject({ connection: 'disconnected', jobState: 'none' });
    }

    // A clean stop: "shutdown" within 1 s, and the process gone soon after.
    term.r.child.kill('SIGTERM');
    const bye = await viewer.next((h) => h.topic === topic('term-1') && h.state?.online === false, 1000);
    expect(bye.state).toMatchObject({ status: 'offline', reason: 'shutdown', machine: null });
    expect((await term.r.finished).code).toBe(0);

    // A crash: the broker publishes the will within 1 s.
    kill.r.child.kill('SIGKILL');
    const lost = await viewer.next((h) => h.topic === topic('kill-1') && h.state?.online === false, 1000);
    expect(lost.state).toMatchObject({ status: 'offline', reason: 'connection lost', machine: null });
    expect(
      viewer.heard.filter((h) => h.topic === topic('term-1') && h.state?.reason === 'connection lost'),
    ).toEqual([]);

    // The password reached the broker, never a log.
    for (const { r, dataDir } of [term, kill]) {
      const log = await readFile(join(dataDir, 'towpath.log'), 'utf8');
      expect(log).toContain('fleet.starting');
      expect(log).not.toContain(PASSWORD);
      expect(r.stdout() + r.stderr()).not.toContain(PASSWORD);
    }
  }, 90_000);

  it('keeps one publisher when a second core starts with the same id', async () => {
    const topic = 'towpath/v1/dup-1/state';
    const first = await serve('dup-1');
    const birth = await viewer.next((h) => h.topic === topic && h.state?.online === true, 2000);
    const second = await serve('dup-1');
    // The later one says so once, in one line, and stops publishing; the first one's state stands.
    await second.r.waitFor(/fleet\.conflict/);
    await viewer.next(
      (h) => h.topic === topic && h.state?.online === true && h.state.instance !== birth.state?.instance,
      2000,
    );
    const restored = await viewer.next(
      (h) =>
        viewer.heard.indexOf(h) > viewer.heard.indexOf(birth) &&
        h.topic === topic &&
        h.state?.instance === birth.state?.instance,
      5000,
    );
    expect(restored.state?.online).toBe(true);
    expect(second.r.stderr().match(/fleet\.conflict/g)).toHaveLength(1);
    expect(first.r.stderr()).not.toContain('fleet.conflict');
    // Both cores keep running; only the first speaks for dup-1, and nobody's will was published.
    expect(viewer.heard.filter((h) => h.topic === topic && h.state?.online === false)).toEqual([]);
    // And it left the broker.
    const log = () => readFile(join(second.dataDir, 'towpath.log'), 'utf8');
    await eventually(async () => (await log()).includes('"event":"fleet.disconnected"'), 5000);
  }, 90_000);

  it('goes offline when its core hangs, and comes back when it resumes', async () => {
    const topic = 'towpath/v1/hang-1/state';
    const { r } = await serve('hang-1', { FLEET_KEEPALIVE_SECONDS: '5' });
    const birth = await viewer.next((h) => h.topic === topic && h.state?.online === true, 2000);
    const born = viewer.heard.indexOf(birth);
    // A hung PC or a pulled cable: the broker gives up after 1.5 × keepalive, checked every ~5 s.
    r.child.kill('SIGSTOP');
    const lost = await viewer.next(
      (h) => viewer.heard.indexOf(h) > born && h.topic === topic && h.state?.online === false,
      13_500,
    );
    expect(lost.state?.reason).toBe('connection lost');
    r.child.kill('SIGCONT');
    const back = await viewer.next(
      (h) =>
        viewer.heard.indexOf(h) > viewer.heard.indexOf(lost) && h.topic === topic && h.state?.online === true,
      10_000,
    );
    expect(back.state?.instance).toBe(birth.state?.instance);
  }, 90_000);
});
