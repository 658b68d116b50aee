// adminRuntimeMetrics' `gateway` part (spec §15) read from GATEWAY_RUNTIME_METRICS_URL, with the
// embedded gateway off (GATEWAY_ENABLED=false): while it runs, its own counters are served instead.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';
import { rawRequest } from '../testing/http.ts';

let f: Fixture | undefined;
let gateway: Server | undefined;
afterEach(async () => {
  await f?.ws.dispose();
  f = undefined;
  await new Promise((resolve) => (gateway ? gateway.close(resolve) : resolve(undefined)));
  gateway = undefined;
});

const QUERY =
  '{ adminRuntimeMetrics { collectedAt api { requestCount collectedAt } gateway { uptimeSeconds realtimeActiveConnections httpAvgLatencyMs } } }';

const GATEWAY_COUNTERS = {
  startedAt: '2030-01-01T00:00:00.000Z',
  collectedAt: '2030-01-01T00:01:00.000Z',
  uptimeSeconds: 60,
  httpRequestCount: 4,
  httpErrorCount: 1,
  httpAvgLatencyMs: 2.5,
  realtimeConnectionAttempts: 5,
  realtimeConnectionsAccepted: 4,
  realtimeConnectionsRejected: 1,
  realtimeActiveConnections: 3,
  realtimeMessagesIn: 10,
  realtimeMessagesOut: 12,
  realtimeErrorCount: 0,
};

/** A stand-in gateway: answers every request with `status` and `body`, remembering each request. */
async function fakeGateway(status: number, body: string) {
  const seen: { url: string | undefined; authorization: string | undefined }[] = [];
  gateway = createServer((request, response) => {
    seen.push({ url: request.url, authorization: request.headers.authorization });
    response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => gateway?.listen(0, '127.0.0.1', resolve));
  const { port } = gateway.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/metrics`, seen };
}

describe('gateway runtime metrics', () => {
  it('are null without a gateway', async () => {
    f = await startFixture({ GATEWAY_ENABLED: 'false' });
    const response = await f.call(QUERY, undefined, 'admin');
    expect(response.errors).toBeUndefined();
    expect(response.data?.adminRuntimeMetrics).toMatchObject({ gateway: null });
    // And its routes answer 404 (gateway spec §1), the WebSocket upgrade included.
    const fetched = await fetch(`${f.url}/gateway/http/fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([fetched.status, await fetched.json()]).toEqual([404, { error: 'Not found' }]);
    const upgrade = await rawRequest(`${f.url}/gateway/realtime`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    });
    expect([upgrade.status, upgrade.json]).toEqual([404, { error: 'Not found' }]);
  });

  it('are fetched from GATEWAY_RUNTIME_METRICS_URL with the gateway service token', async () => {
    const { url, seen } = await fakeGateway(200, JSON.stringify(GATEWAY_COUNTERS));
    f = await startFixture({ GATEWAY_ENABLED: 'false', GATEWAY_RUNTIME_METRICS_URL: url });
    const response = await f.call(QUERY, undefined, 'admin');
    expect(response.errors).toBeUndefined();
    const metrics = response.data?.adminRuntimeMetrics as {
      collectedAt: string;
      api: { collectedAt: string };
    };
    expect(metrics).toMatchObject({
      gateway: { uptimeSeconds: 60, realtimeActiveConnections: 3, httpAvgLatencyMs: 2.5 },
    });
    expect(metrics.collectedAt).toBe(metrics.api.collectedAt);
    expect(seen).toEqual([
      {
        url: '/metrics',
        authorization: `Bearer ${f.ws.dashboardApi.secrets.GATEWAY_SERVICE_TOKEN}`,
      },
    ]);
    // Not fetched when the field is not asked for.
    await f.call('{ adminRuntimeMetrics { api { requestCount } } }', undefined, 'admin');
    expect(seen).toHaveLength(1);
  });

  it.each([
    [500, '{"connections":3}'],
    [200, '[1, 2]'],
    [200, 'not json'],
    [200, '{"connections":3}'],
  ])('read as null when the gateway answers %i %s', async (status, body) => {
    const { url } = await fakeGateway(status, body);
    f = await startFixture({ GATEWAY_ENABLED: 'false', GATEWAY_RUNTIME_METRICS_URL: url });
    const response = await f.call(QUERY, undefined, 'admin');
    expect(response.errors).toBeUndefined();
    expect(response.data?.adminRuntimeMetrics).toMatchObject({ gateway: null });
  });

  it('read as null when the gateway cannot be reached', async () => {
    const { url } = await fakeGateway(200, '{}');
    await new Promise((resolve) => gateway?.close(resolve));
    gateway = undefined;
    f = await startFixture({ GATEWAY_ENABLED: 'false', GATEWAY_RUNTIME_METRICS_URL: url });
    const response = await f.call(QUERY, undefined, 'admin');
    expect(response.errors).toBeUndefined();
    expect(response.data?.adminRuntimeMetrics).toMatchObject({ gateway: null });
  });
});
