// The fleet publisher against a real Mosquitto on loopback, fed by the real machine feed over a
// controller stand-in (the feed's input is the machine process's events; nothing else is faked).
import mqtt from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../bridge/version.ts';
import { eventually } from '../../engine/testing/eventually.ts';
import type { FleetConfig } from '../config/fleet.ts';
import { MachineFeed } from '../gateway/realtime/machine-feed.ts';
import { createLogger } from '../log.ts';
import { type Mosquitto, startMosquitto } from '../testing/mosquitto.ts';
import { FleetPublisher } from './publisher.ts';
import { Controller } from './testing/controller.ts';
import { type Heard, type Observer, observe } from './testing/observer.ts';
import { fleetSettings } from './testing/settings.ts';

let broker: Mosquitto;
beforeAll(async () => {
  broker = await startMosquitto({ logSubscriptions: true });
});
afterAll(async () => {
  await broker?.stop();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

let ids = 0;
/** A fresh workstation id per test, so one test's retained state never meets another's. */
const nextId = () => `w${(++ids).toString().padStart(2, '0')}-${process.pid}`;

const settings = (workstationId: string, overrides: Partial<FleetConfig> = {}) =>
  fleetSettings(broker.url, workstationId, { name: `Winder ${workstationId}`, ...overrides });

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

function publisher(config: FleetConfig, controller = new Controller()) {
  const feed = new MachineFeed(controller);
  const { lines, logger } = logLines();
  const fleet = new FleetPublisher({ config, feed, logger });
  cleanups.push(async () => {
    await fleet.stop();
    feed.close();
  });
  return { fleet, feed, controller, lines };
}

async function viewer(filter: string): Promise<Observer> {
  const observer = await observe(broker.url, filter);
  cleanups.push(() => observer.end());
  return observer;
}

const from = (fleet: FleetPublisher) => (heard: Heard) => heard.state?.instance === fleet.identity.instance;

describe('fleet publisher', () => {
  it('publishes a retained QoS 1 birth with identity, status and the machine value at once', async () => {
    const id = nextId();
    const { fleet, feed } = publisher(settings(id));
    const live = await viewer(`towpath/v1/${id}/state`);
    fleet.start();
    // Birth within 2 s of the start.
    const birth = await live.next(from(fleet), 2000);
    expect(birth.topic).toBe(`towpath/v1/${id}/state`);
    expect(birth.qos).toBe(1);
    expect(birth.state).toEqual({
      v: 1,
      workstationId: id,
      name: `Winder ${id}`,
      online: true,
      status: 'idle',
      since: fleet.identity.since,
      instance: expect.stringMatching(/^[0-9a-f]{16}$/),
      towpathVersion: VERSION,
      machine: feed.value,
      at: expect.any(String),
    });
    expect(fleet.clientId).toBe(`towpath-${id}-${fleet.identity.instance.slice(0, 8)}`);
    // A viewer that comes later gets it from the broker: it is retained.
    const late = await viewer(`towpath/v1/${id}/state`);
    const kept = await late.next(from(fleet), 2000);
    expect(kept.retain).toBe(true);
    expect(kept.state?.online).toBe(true);
    expect(fleet.runtime()).toMatchObject({ connected: true, conflict: false, lastError: null });
  });

  it('derives the status from the machine value and sends job transitions at once', async () => {
    const id = nextId();
    // A long interval: only a transition can get through quickly.
    const { fleet, controller } = publisher(settings(id, { minIntervalMs: 60_000 }));
    const live = await viewer(`towpath/v1/${id}/state`);
    fleet.start();
    await live.next((h) => h.state?.status === 'idle', 2000);
    controller.progress(0);
    controller.state('streaming');
    const running = await live.next((h) => h.state?.status === 'running', 2000);
    expect(running.state?.machine?.jobState).toBe('streaming');
    // Progress alone waits for the interval…
    controller.progress(10);
    controller.state('paused');
    // …but the pause is a transition, and carries the newest progress with it.
    const paused = await live.next((h) => h.state?.status === 'paused', 2000);
    expect(paused.state?.machine?.linesAcknowledged).toBe(10);
    controller.state('error');
    expect((await live.next((h) => h.state?.status === 'error', 2000)).state?.machine?.jobState).toBe(
      'error',
    );
    controller.current = { ...controller.current, job: null };
    controller.state('idle');
    const gone = await live.next((h) => h.state?.status === 'disconnected', 2000);
    expect(gone.state?.machine?.connection).toBe('disconnected');
  });

  it('coalesces progress to one message per interval, the latest value winning', async () => {
    const id = nextId();
    const interval = 400;
    const { fleet, controller } = publisher(settings(id, { minIntervalMs: interval }));
    const live = await viewer(`towpath/v1/${id}/state`);
    fleet.start();
    await live.next(from(fleet), 2000);
    controller.progress(0);
    controller.state('streaming');
    await live.next((h) => h.state?.status === 'running', 2000);
    // Forty progress events over about two seconds.
    for (let n = 1; n <= 40; n++) {
      controller.progress(n * 10);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const last = await live.next((h) => h.state?.machine?.linesAcknowledged === 400, 2000);
    const progress = live.heard.filter((h) => h.state?.status === 'running' && h !== last);
    const all = [...progress, last];
    const times = all.map((h) => Date.parse(h.state?.at ?? ''));
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(interval);
    // Far fewer messages than events, but progress kept flowing, in order.
    expect(all.length).toBeLessThan(12);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const lines = all.map((h) => h.state?.machine?.linesAcknowledged ?? -1);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('says "shutdown" on a clean stop and then disconnects without its will', async () => {
    const id = nextId();
    const { fleet } = publisher(settings(id));
    const live = await viewer(`towpath/v1/${id}/state`);
    fleet.start();
    await live.next(from(fleet), 2000);
    await fleet.stop();
    const bye = await live.next((h) => h.state?.online === false, 1000);
    expect(bye.state).toMatchObject({ online: false, status: 'offline', reason: 'shutdown', machine: null });
    expect(fleet.runtime().connected).toBe(false);
    // A clean DISCONNECT: the broker keeps the will ("connection lost") to itself.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.heard.filter((h) => h.state?.reason === 'connection lost')).toEqual([]);
    const late = await viewer(`towpath/v1/${id}/state`);
    expect((await late.next(() => true, 2000)).state?.reason).toBe('shutdown');
  });

  it('publishes its current state again on every reconnect, never a backlog', async () => {
    const id = nextId();
    const { fleet, controller } = publisher(settings(id));
    const live = await viewer(`towpath/v1/${id}/state`);
    fleet.start();
    await live.next(from(fleet), 2000);
    await broker.kill();
    // Changes while the broker is away are not queued.
    controller.progress(5);
    controller.state('streaming');
    controller.progress(7);
    await broker.restart();
    const back = await viewer(`towpath/v1/${id}/state`);
    const state = await back.next((h) => h.state?.online === true && h.state.status === 'running', 10_000);
    expect(state.state?.machine?.linesAcknowledged).toBe(7);
    // Exactly the latest: no older queued states arrive after it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const running = back.heard.filter((h) => h.state?.online);
    expect(running.map((h) => h.state?.machine?.linesAcknowledged)).toEqual([7]);
  }, 20_000);

  it('lets only the first of two processes with one id publish; the later logs the conflict once and leaves', async () => {
    const id = nextId();
    const first = publisher(settings(id));
    const live = await viewer(`towpath/v1/${id}/state`);
    first.fleet.start();
    await live.next(from(first.fleet), 2000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = publisher(settings(id));
    expect(second.fleet.identity.instance).not.toBe(first.fleet.identity.instance);
    second.fleet.start();
    await eventually(() => second.fleet.runtime().conflict, 10_000);
    await eventually(() => !second.fleet.runtime().connected, 5000);
    // The first one put its own state back over the newcomer's birth.
    await eventually(() => live.heard.at(-1)?.state?.instance === first.fleet.identity.instance, 5000);
    expect(first.fleet.runtime()).toMatchObject({ connected: true, conflict: false });
    const conflicts = second.lines.filter((line) => line.event === 'fleet.conflict');
    expect(conflicts).toHaveLength(1);
    expect(first.lines.filter((line) => line.event === 'fleet.conflict')).toEqual([]);
    // The later one left with a DISCONNECT: no will and no "shutdown" over the first one's state.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.heard.filter((h) => h.state?.online === false)).toEqual([]);
    expect(live.heard.length).toBeLessThanOrEqual(4);
    const late = await viewer(`towpath/v1/${id}/state`);
    expect((await late.next(() => true, 2000)).state).toMatchObject({
      online: true,
      instance: first.fleet.identity.instance,
    });
    // Stopping the loser later sends nothing either.
    await second.fleet.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(live.heard.filter((h) => h.state?.online === false)).toEqual([]);
  }, 30_000);

  it('is not moved by anything another client publishes into its subtree', async () => {
    const id = nextId();
    const { fleet, controller, feed } = publisher(settings(id));
    const live = await viewer(`towpath/v1/${id}/#`);
    fleet.start();
    await live.next(from(fleet), 2000);
    const before = feed.value;
    const stranger = await mqtt.connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
    cleanups.push(() => stranger.endAsync());
    const calls = { status: 0 };
    const status = controller.status.bind(controller);
    controller.status = () => {
      calls.status += 1;
      return status();
    };
    for (const [topic, payload] of [
      [`towpath/v1/${id}/command`, JSON.stringify({ gcode: 'G28', action: 'start' })],
      [`towpath/v1/${id}/state/set`, JSON.stringify({ jobState: 'streaming' })],
      [`towpath/v1/${id}/state`, 'G28'],
      [`towpath/v1/${id}/state`, JSON.stringify({ online: false, status: 'offline', instance: 'x' })],
      [`towpath/v1/${id}/state`, ''],
    ] as const)
      await stranger.publishAsync(topic, payload, { qos: 1, retain: true });
    // Its own state is put back over whatever was written on its topic…
    await eventually(() => {
      const erased = live.heard.findIndex((h) => h.raw === '');
      return erased >= 0 && live.heard.slice(erased).some(from(fleet));
    }, 3000);
    // …and nothing reached the machine side: no status read was even prompted, the value is the same.
    expect(calls.status).toBe(0);
    expect(feed.value).toEqual(before);
    expect(fleet.runtime()).toMatchObject({ connected: true, conflict: false });
    const late = await viewer(`towpath/v1/${id}/state`);
    expect((await late.next(() => true, 2000)).state?.instance).toBe(fleet.identity.instance);
    // The broker's own record: its one subscription is its own state topic.
    const subscriptions = broker
      .log()
      .split('\n')
      .filter((line) => line.includes(` ${fleet.clientId} `));
    expect(subscriptions).toEqual([
      expect.stringMatching(new RegExp(` ${fleet.clientId} 1 towpath/v1/${id}/state$`)),
    ]);
  });
});
