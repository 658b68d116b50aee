// MQTT upstreams end to end (gateway spec §4): a real Mosquitto requiring a password, a broker
// profile with BASIC credentials applied server-side, sockets subscribed through a real workstation.
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../engine/testing/eventually.ts';
import { dataOf } from '../../testing/graphql.ts';
import { type Fixture, startFixture } from '../../testing/graphql-fixture.ts';
import { type Mosquitto, startMosquitto } from '../../testing/mosquitto.ts';
import { connectRealtime, GATEWAY_TEST_LIMITS, type RealtimeClient } from '../../testing/realtime.ts';

const USER = { username: 'gateway', password: 'broker-pass-9' };

let f: Fixture;
let broker: Mosquitto;
let board: { _id: string; shareToken: string };
let publisher: mqtt.MqttClient;
let brokerId: string;
const sockets: RealtimeClient[] = [];

async function open() {
  const client = await connectRealtime(f.url);
  sockets.push(client);
  return client;
}

async function mint(datasourceId: string) {
  const response = await f.call(
    'mutation($d: ID!, $s: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s, shareToken: $t) { token } }',
    { d: board._id, s: datasourceId, t: board.shareToken },
  );
  return dataOf<{ token: string }>(response, 'mintDatasourceSessionToken').token;
}

async function subscribe(client: RealtimeClient, id: string, datasourceId: string) {
  client.send({
    type: 'subscribe',
    id,
    dashboardId: board._id,
    datasourceId,
    sessionToken: await mint(datasourceId),
  });
  await client.next((m) => m.id === id && m.type === 'status' && m.status === 'connected');
}

const publish = (topic: string, payload: string, qos: 0 | 1) =>
  publisher.publishAsync(topic, payload, { qos });

/**
 * `connected` is the broker's CONNACK (§4.2); the SUBACK of a new filter may still be on its way.
 * Probes go out until one reaches every given subscription, so later values cannot be lost to it.
 */
async function untilFlowing(topic: string, subscribers: [RealtimeClient, string][], from = 0) {
  let probe = 0;
  await eventually(() => {
    void publish(topic, JSON.stringify({ probe: ++probe }), 0);
    return subscribers.every(([client, id]) =>
      client.messages
        .slice(from)
        .some((m) => m.id === id && m.type === 'data' && JSON.stringify(m.value).includes('probe')),
    );
  }, 20_000);
}

beforeAll(async () => {
  broker = await startMosquitto({ user: USER });
  f = await startFixture(GATEWAY_TEST_LIMITS);
  const credential = dataOf<{ _id: string }>(
    await f.call(
      'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
      { i: { name: 'Broker login', type: 'BASIC', secret: USER, allowPublicUse: true } },
      'admin',
    ),
    'adminCreateCredentialProfile',
  )._id;
  brokerId = dataOf<{ _id: string }>(
    await f.call(
      'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
      {
        i: {
          name: 'Shop broker',
          brokerUrl: broker.url,
          credentialProfileId: credential,
          allowPublicUse: true,
          topicAllowlist: ['shop/#'],
        },
      },
      'admin',
    ),
    'adminCreateBrokerProfile',
  )._id;
  const mqttSource = (id: string, topic: string, qos: number, parser = 'json') => ({
    id,
    title: id,
    type: 'mqtt',
    settings: { brokerProfileId: brokerId, topic, qos, parser },
  });
  board = dataOf<{ _id: string; shareToken: string }>(
    await f.call(
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
      {
        i: {
          title: 'Resin line',
          version: 'towpath 0.1.0',
          visibility: 'LINK',
          datasources: [
            mqttSource('resin0', 'shop/resin/temp', 0),
            mqttSource('resin1', 'shop/resin/level', 1),
            mqttSource('cells', 'shop/cells/+', 1, 'text'),
            mqttSource('bigQos1', 'shop/big', 1, 'text'),
          ],
        },
      },
      'admin',
    ),
    'createDashboard',
  );
  publisher = await mqtt.connectAsync(broker.url, { ...USER, reconnectPeriod: 200 });
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.ws.terminate();
  await publisher?.endAsync(true);
  await f?.ws.dispose();
  await broker?.stop();
});

describe('MQTT upstreams', () => {
  it('delivers QoS 0 and QoS 1 payloads unchanged and in order; the password never reaches the socket', async () => {
    const client = await open();
    await subscribe(client, 'q0', 'resin0');
    await subscribe(client, 'q1', 'resin1');
    await subscribe(client, 'w', 'cells');
    for (let i = 1; i <= 5; i += 1) {
      await publish('shop/resin/temp', JSON.stringify({ celsius: 20 + i }), 0);
      await publish('shop/resin/level', JSON.stringify({ litres: i }), 1);
    }
    await publish('shop/cells/7', 'running', 1);
    await client.next((m) => m.id === 'q0' && m.seq === 5);
    await client.next((m) => m.id === 'q1' && m.seq === 5);
    const w = await client.next((m) => m.id === 'w' && m.type === 'data');
    const values = (id: string) =>
      client.messages.filter((m) => m.id === id && m.type === 'data').map((m) => m.value);
    expect(values('q0')).toEqual([1, 2, 3, 4, 5].map((i) => ({ celsius: 20 + i })));
    expect(values('q1')).toEqual([1, 2, 3, 4, 5].map((i) => ({ litres: i })));
    expect(w).toMatchObject({ topic: 'shop/cells/7', value: 'running' });
    expect(JSON.stringify(client.messages)).not.toContain(USER.password);
  });

  it('on a wildcard filter a zero-length payload removes its topic, live and from the replay', async () => {
    const client = await open();
    await subscribe(client, 'cells', 'cells');
    await subscribe(client, 'exact', 'resin0');
    await untilFlowing('shop/cells/probe', [[client, 'cells']]);
    await publisher.publishAsync('shop/cells/8', 'winding', { qos: 1, retain: true });
    await publisher.publishAsync('shop/cells/9', 'curing', { qos: 1, retain: true });
    await client.next((m) => m.id === 'cells' && m.topic === 'shop/cells/9');
    await publisher.publishAsync('shop/cells/8', '', { qos: 1, retain: true });
    const removed = await client.next((m) => m.id === 'cells' && m.removed === true);
    expect(removed).toMatchObject({ type: 'data', topic: 'shop/cells/8', value: null });
    // On a single topic an empty payload is still a value (json: null), not a removal.
    await publish('shop/resin/temp', '', 1);
    const empty = await client.next((m) => m.id === 'exact' && m.type === 'data' && m.value === null);
    expect(empty.removed).toBeUndefined();
    // A viewer joining the live filter is replayed the topics still there, not the removed one.
    const late = await open();
    await subscribe(late, 'late', 'cells');
    await late.next((m) => m.id === 'late' && m.topic === 'shop/cells/9' && m.replay === true);
    const replayed = late.messages.filter((m) => m.id === 'late' && m.replay === true).map((m) => m.topic);
    expect(replayed).not.toContain('shop/cells/8');
    expect(late.messages.some((m) => m.type === 'error')).toBe(false);
    await publisher.publishAsync('shop/cells/9', '', { qos: 1, retain: true });
  });

  it('50 subscribers on one topic share one broker connection and all get each message', async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => open()));
    await Promise.all(clients.map((client, i) => subscribe(client, `s${i}`, 'resin1')));
    expect(f.ws.gateway.pool.counts().mqtt).toBe(1);
    await publish('shop/resin/level', '{"litres": 99}', 1);
    for (const client of clients)
      await client.next(
        (m) => m.type === 'data' && (m.value as { litres: number }).litres === 99 && !m.replay,
      );
    for (const client of clients) client.close();
  });

  it('a killed broker: subscribers see reconnecting, then resume once it is back, without duplicates', async () => {
    const client = await open();
    await subscribe(client, 'k', 'resin1');
    await publish('shop/resin/level', '{"litres": 1}', 1);
    await client.next((m) => m.id === 'k' && m.type === 'data' && !m.replay);
    await broker.kill();
    const reconnecting = await client.next((m) => m.id === 'k' && m.status === 'reconnecting');
    expect(reconnecting).toMatchObject({ type: 'status', message: 'MQTT connection lost' });
    expect(reconnecting.retryInMs).toBeGreaterThanOrEqual(800);
    const from = client.messages.length;
    await broker.restart();
    await client.next((m) => m.id === 'k' && m.status === 'connected', 40_000, from);
    // The publisher reconnects on its own; and `connected` is the gateway's CONNACK, its SUBACK may
    // follow: probes until one comes through, then the values under test.
    await eventually(() => publisher.connected, 20_000);
    await untilFlowing('shop/resin/level', [[client, 'k']], from);
    await publish('shop/resin/level', '{"litres": 2}', 1);
    await publish('shop/resin/level', '{"litres": 3}', 1);
    await client.next((m) => m.id === 'k' && (m.value as { litres?: number })?.litres === 3);
    const data = client.messages.filter((m) => m.id === 'k' && m.type === 'data' && !m.replay);
    const litres = data.map((m) => (m.value as { litres?: number }).litres).filter((n) => n !== undefined);
    expect(litres).toEqual([1, 2, 3]);
    const seqs = data.map((m) => m.seq as number);
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 90_000);

  it('a slow socket is dropped at the buffer limit without stalling the others', async () => {
    const fast = await open();
    const slow = await open();
    await subscribe(fast, 'fast', 'bigQos1');
    await subscribe(slow, 'slow', 'bigQos1');
    await untilFlowing('shop/big', [
      [fast, 'fast'],
      [slow, 'slow'],
    ]);
    // The slow client stops reading: what the gateway writes piles up in its send buffer.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // Published in batches the fast client (in this same process, so sharing its event loop) has
    // read before the next: well over 4 MiB plus the kernel's socket buffers (loopback autotuning
    // may grow a receive buffer to 32 MiB) pile up for the slow one.
    const payload = 'x'.repeat(10 * 1024);
    const count = 6000;
    for (let i = 0; i < count; i += 1) {
      await publish('shop/big', `${i}:${payload}`, 1);
      if (i % 100 === 99)
        await fast.next(
          (m) => m.id === 'fast' && typeof m.value === 'string' && m.value.startsWith(`${i}:`),
          30_000,
        );
    }
    const received = fast.messages.filter(
      (m) => m.id === 'fast' && typeof m.value === 'string' && !m.value.includes('probe'),
    ).length;
    expect(received).toBe(count);
    await eventually(() => !f.ws.gateway.realtime.hasSocketOf(slow.ws), 20_000);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect([4001, 1006]).toContain((await slow.closed).code);
  }, 90_000);

  it('refuses a topic the broker profile no longer allows', async () => {
    const token = await mint('resin0');
    const setAllowlist = (list: string[]) =>
      f.call(
        'mutation($id: ID!, $i: BrokerProfileUpdateInput!) { adminUpdateBrokerProfile(_id: $id, input: $i) { _id } }',
        { id: brokerId, i: { topicAllowlist: list } },
        'admin',
      );
    await setAllowlist(['shop/cells/#']);
    const client = await open();
    client.send({
      type: 'subscribe',
      id: 'no',
      dashboardId: board._id,
      datasourceId: 'resin0',
      sessionToken: token,
    });
    expect(await client.next((m) => m.type === 'closed')).toMatchObject({
      reason: 'denied',
      status: 403,
      message: 'Topic not allowed by the broker profile',
    });
    await setAllowlist(['shop/#']);
  });
});
