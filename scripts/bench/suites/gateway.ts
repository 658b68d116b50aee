// The realtime gateway: MQTT fan-out through a `towpath serve` child and a real Mosquitto, and its
// heap per idle subscription and per upstream connection. Figures and targets:
// scripts/bench/README.md.
import v8 from 'node:v8';
import vm from 'node:vm';
import mqtt from 'mqtt';
import { eventually } from '../../../engine/testing/eventually.ts';
import { startCore } from '../../../server/testing/core.ts';
import { gql } from '../../../server/testing/graphql.ts';
import { startMosquitto } from '../../../server/testing/mosquitto.ts';
import {
  connectRealtime,
  GATEWAY_TEST_LIMITS,
  type RealtimeClient,
  startSseServer,
} from '../../../server/testing/realtime.ts';
import { startTestWorkstation } from '../../../server/testing/workstation.ts';
import type { Bench } from '../support/report.ts';

const ADMIN = { email: 'bench@towpath.test', password: 'Str0ng-password!' };
const SUBSCRIBERS = Number(process.env.BENCH_GATEWAY_SUBSCRIBERS ?? 200);
const RATE = 1000;
const SECONDS = Number(process.env.BENCH_GATEWAY_SECONDS ?? 10);
const GENEROUS = {
  ...GATEWAY_TEST_LIMITS,
  CREATE_ADMIN: 'true',
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
};

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

async function admin(lan: string) {
  const signIn = await gql<{ authUser: { token: string } }>(
    lan,
    'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
    { variables: { e: ADMIN.email, p: ADMIN.password } },
  );
  const token = signIn.data?.authUser.token as string;
  return async <T>(query: string, variables: Record<string, unknown>, field: string): Promise<T> => {
    const response = await gql<Record<string, T>>(lan, query, { token, variables });
    const value = response.data?.[field];
    if (!value) throw new Error(response.raw);
    return value;
  };
}

async function publicDashboard(lan: string, datasources: unknown[]): Promise<string> {
  const call = await admin(lan);
  const made = await call<{ _id: string }>(
    'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
    { i: { title: 'Bench', version: 'towpath 0.1.0', visibility: 'PUBLIC', datasources } },
    'createDashboard',
  );
  return made._id;
}

async function mint(lan: string, dashboardId: string, datasourceId: string): Promise<string> {
  const response = await gql<{ mintDatasourceSessionToken: { token: string } }>(
    lan,
    'mutation($d: ID!, $s: ID!) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s) { token } }',
    { variables: { d: dashboardId, s: datasourceId } },
  );
  const token = response.data?.mintDatasourceSessionToken.token;
  if (!token) throw new Error(response.raw);
  return token;
}

async function fanOut(report: Parameters<Bench>[0]) {
  const broker = await startMosquitto();
  const core = await startCore(GENEROUS);
  const clients: RealtimeClient[] = [];
  const publisher = await mqtt.connectAsync(broker.url);
  try {
    const call = await admin(core.lan);
    const brokerProfile = await call<{ _id: string }>(
      'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
      { i: { name: 'Bench broker', brokerUrl: broker.url, allowPublicUse: true } },
      'adminCreateBrokerProfile',
    );
    const dashboardId = await publicDashboard(core.lan, [
      {
        id: 'line',
        title: 'Line',
        type: 'mqtt',
        settings: { brokerProfileId: brokerProfile._id, topic: 'bench/line' },
      },
    ]);
    const sessionToken = await mint(core.lan, dashboardId, 'line');
    const total = RATE * SECONDS;
    const latencies: number[] = [];
    const seen = Array.from({ length: SUBSCRIBERS }, () => new Uint8Array(total));
    for (let i = 0; i < SUBSCRIBERS; i += 1) {
      const client = await connectRealtime(core.lan);
      // Only the numbers are read from each frame: the bench process must not be the bottleneck.
      client.ws.removeAllListeners('message');
      client.ws.on('message', (data) => {
        const text = String(data);
        const at = text.indexOf('"n":');
        if (at < 0) return;
        const n = Number.parseInt(text.slice(at + 4), 10);
        const t = Number.parseFloat(text.slice(text.indexOf('"t":') + 4));
        if (n >= 0 && n < total && !(seen[i] as Uint8Array)[n]) {
          (seen[i] as Uint8Array)[n] = 1;
          latencies.push(performance.now() - t);
        }
      });
      clients.push(client);
      client.send({ type: 'subscribe', id: 'line', dashboardId, datasourceId: 'line', sessionToken });
    }
    // Until every subscriber has a value: publish a warm-up until all 200 have seen one.
    const warm = new Set<number>();
    const warmers = clients.map((client, i) => {
      const listener = (data: unknown) => {
        if (String(data).includes('"warm"')) warm.add(i);
      };
      client.ws.on('message', listener);
      return () => client.ws.off('message', listener);
    });
    await eventually(() => {
      void publisher.publishAsync('bench/line', '"warm"');
      return warm.size === SUBSCRIBERS;
    }, 60_000);
    for (const stop of warmers) stop();
    const started = performance.now();
    let n = 0;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
        for (; n < due; n += 1) publisher.publish('bench/line', `{"n":${n},"t":${performance.now()}}`);
        if (n >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    const expected = total * SUBSCRIBERS;
    await eventually(() => latencies.length >= expected, 30_000).catch(() => {});
    latencies.sort((a, b) => a - b);
    report('gateway.mqtt_fanout.p50', 'ms', quantile(latencies, 0.5), null);
    report('gateway.mqtt_fanout.p99', 'ms', quantile(latencies, 0.99), 50);
    report('gateway.mqtt_fanout.lost', 'messages', expected - latencies.length, 0);
    report(
      'gateway.mqtt_fanout.delivered_per_s',
      'messages/s',
      latencies.length / SECONDS,
      RATE * SUBSCRIBERS,
    );
  } finally {
    for (const client of clients) client.ws.terminate();
    await publisher.endAsync(true);
    await core.stop();
    await broker.stop();
  }
}

async function memory(report: Parameters<Bench>[0]) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const heap = async () => {
    for (let i = 0; i < 3; i += 1) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return process.memoryUsage().heapUsed;
  };
  // The spec's password cost, as a deployed core has it: the heap figures are the core's.
  const ws = await startTestWorkstation(GENEROUS, { specArgon2: true });
  const sse = await startSseServer();
  const clients: RealtimeClient[] = [];
  try {
    const lan = ws.urls.lan;
    const upstreams = 200;
    // At most 50 datasources per dashboard (document §8): four dashboards of 50 intents each.
    const sources: { dashboardId: string; datasourceId: string; token: string }[] = [];
    for (let d = 0; d < upstreams / 50; d += 1) {
      const datasources = Array.from({ length: 50 }, (_, i) => ({
        id: `u${i}`,
        title: `U${i}`,
        type: 'sse',
        settings: { url: `${sse.url}?u=${d * 50 + i}` },
      }));
      const dashboardId = await publicDashboard(lan, datasources);
      for (const datasource of datasources)
        sources.push({
          dashboardId,
          datasourceId: datasource.id,
          token: await mint(lan, dashboardId, datasource.id),
        });
    }
    const perSocket = 50;
    const socketCount = 20;
    for (let i = 0; i < socketCount; i += 1) clients.push(await connectRealtime(lan));
    const subscribe = async (client: RealtimeClient, id: string, index: number) => {
      const { dashboardId, datasourceId, token } = sources[index] as (typeof sources)[number];
      client.send({ type: 'subscribe', id, dashboardId, datasourceId, sessionToken: token });
      await client.next((m) => m.id === id && m.type === 'status' && m.status === 'connected', 30_000);
    };
    // Idle subscriptions of one upstream: 20 sockets × 50.
    await subscribe(clients[0] as RealtimeClient, 'warm', 0);
    const base = await heap();
    for (const [s, client] of clients.entries())
      await Promise.all(
        Array.from({ length: perSocket }, (_, k) =>
          s === 0 && k === 0 ? null : subscribe(client, `i${k}`, 0),
        ),
      );
    const idle = socketCount * perSocket - 1;
    const withIdle = await heap();
    report('gateway.memory.per_idle_subscription', 'bytes', (withIdle - base) / idle, null);
    // Upstream connections: the same sockets, now 200 subscriptions to 200 intents (200 SSE
    // connections); the per-subscription cost measured above is taken off.
    for (const [s, client] of clients.entries())
      for (let k = 0; k < perSocket; k += 1)
        if (!(s === 0 && k === 0)) client.send({ type: 'unsubscribe', id: `i${k}` });
    await eventually(() => ws.gateway.realtime.subscriptionCount === 1, 30_000);
    const beforeUpstreams = await heap();
    for (let k = 1; k < upstreams; k += 1)
      await subscribe(clients[k % socketCount] as RealtimeClient, `x${k}`, k);
    await eventually(() => sse.clients() === upstreams, 30_000);
    const withUpstreams = await heap();
    const perSubscription = (withIdle - base) / idle;
    // The SSE server here is in this process too: its side of each connection is counted as well.
    report(
      'gateway.memory.per_upstream_connection',
      'bytes',
      (withUpstreams - beforeUpstreams) / (upstreams - 1) - perSubscription,
      null,
    );
  } finally {
    for (const client of clients) client.ws.terminate();
    await ws.dispose();
    await sse.stop();
  }
}

export const bench: Bench = async (report) => {
  await fanOut(report);
  await memory(report);
};
