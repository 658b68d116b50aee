// The realtime socket (gateway spec §3) against a real workstation: real SSE and WebSocket servers on
// loopback as upstreams, real session tokens minted through GraphQL, the machine process's status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually } from '../../../engine/testing/eventually.ts';
import { dataOf } from '../../testing/graphql.ts';
import { type Fixture, startFixture } from '../../testing/graphql-fixture.ts';
import { rawRequest } from '../../testing/http.ts';
import {
  connectRealtime,
  GATEWAY_TEST_LIMITS,
  type RealtimeClient,
  type SseServer,
  startSseServer,
  startWsServer,
  type WsServer,
} from '../../testing/realtime.ts';

let f: Fixture;
let sse: SseServer;
let upstreamWs: WsServer;
let credentialId: string;
const sockets: RealtimeClient[] = [];

async function open(headers?: Record<string, string>) {
  const client = await connectRealtime(f.url, { headers });
  sockets.push(client);
  return client;
}

async function createDashboard(visibility: string, datasources: unknown[], as: 'admin' | 'editor' = 'admin') {
  return dataOf<{ _id: string; shareToken: string }>(
    await f.call(
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
      { i: { title: `Line ${Math.random()}`, version: 'towpath 0.1.0', visibility, datasources } },
      as,
    ),
    'createDashboard',
  );
}

async function mint(
  dashboardId: string,
  datasourceId: string,
  shareToken?: string,
  as: Parameters<Fixture['call']>[2] = 'anonymous',
) {
  const response = await f.call(
    'mutation($d: ID!, $s: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s, shareToken: $t) { token } }',
    { d: dashboardId, s: datasourceId, t: shareToken },
    as,
  );
  return dataOf<{ token: string }>(response, 'mintDatasourceSessionToken').token;
}

const datasources = () => [
  { id: 'temps', title: 'Temps', type: 'sse', settings: { url: sse.url, credentialProfileId: credentialId } },
  { id: 'feed', title: 'Feed', type: 'websocket', settings: { url: upstreamWs.url, parser: 'text' } },
  { id: 'winder', title: 'Winder', type: 'machine' },
  { id: 'clock', title: 'Clock', type: 'clock' },
];

beforeAll(async () => {
  sse = await startSseServer();
  upstreamWs = await startWsServer();
  f = await startFixture(GATEWAY_TEST_LIMITS);
  credentialId = dataOf<{ _id: string }>(
    await f.call(
      'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
      {
        i: {
          name: 'Line key',
          type: 'HEADER',
          metadata: { headerName: 'X-Line-Key' },
          secret: { headerValue: 'line-secret-42' },
          allowPublicUse: true,
        },
      },
      'admin',
    ),
    'adminCreateCredentialProfile',
  )._id;
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.ws.terminate();
  await f?.ws.dispose();
  await sse?.stop();
  await upstreamWs?.stop();
});

describe('upgrade and frames (§3.1)', () => {
  it('answers a plain GET 426 and a foreign Origin 403, and selects the subprotocol', async () => {
    const plain = await rawRequest(`${f.url}/gateway/realtime`);
    expect(plain.status).toBe(426);
    expect(plain.headers.upgrade).toBe('websocket');
    expect(plain.json).toEqual({ error: 'WebSocket upgrade required' });
    await expect(connectRealtime(f.url, { headers: { origin: 'http://evil.example' } })).rejects.toThrow(
      'HTTP 403',
    );
    const client = await open({ origin: f.url });
    expect(client.ws.protocol).toBe('towpath.gateway.v1');
  });

  it('answers malformed messages with errors and a binary frame with 1003', async () => {
    const client = await open();
    client.ws.send('{nope');
    expect(await client.next((m) => m.type === 'error')).toEqual({
      type: 'error',
      id: null,
      code: 'INVALID_MESSAGE',
      message: 'Message is not valid JSON',
    });
    client.send({ type: 'launch' });
    await client.next((m) => m.message === 'Unknown message type launch');
    client.send({ type: 'ping', nonce: 'n1' });
    expect(await client.next((m) => m.type === 'pong')).toEqual({ type: 'pong', nonce: 'n1' });
    client.send({ type: 'unsubscribe', id: 'x' });
    await client.next((m) => m.code === 'UNKNOWN_SUBSCRIPTION' && m.message === 'No subscription with id x');
    client.send({ type: 'subscribe', id: 'bad id!', dashboardId: 'd', datasourceId: 's', sessionToken: 't' });
    expect(await client.next((m) => m.type === 'closed')).toEqual({
      type: 'closed',
      id: null,
      reason: 'invalid_request',
      message: 'id must match [A-Za-z0-9_-]{1,64}',
    });
    client.ws.send(Buffer.from([1, 2, 3]));
    expect(await client.closed).toEqual({ code: 1003, reason: 'Binary frames are not supported' });
  });

  it('closes with 1009 past 64 KiB and 1008 after 20 invalid messages', async () => {
    const big = await open();
    big.ws.send(JSON.stringify({ type: 'ping', nonce: 'x'.repeat(70_000) }));
    expect(await big.closed).toEqual({ code: 1009, reason: 'Message too large' });
    const noisy = await open();
    for (let i = 0; i < 20; i += 1) noisy.ws.send('not json');
    expect(await noisy.closed).toEqual({ code: 1008, reason: 'Too many invalid messages' });
  });
});

describe('streams end to end', () => {
  it('SSE: values reach the socket unchanged and in order; the credential stays on the server', async () => {
    const board = await createDashboard('LINK', datasources());
    const client = await open();
    const sessionToken = await mint(board._id, 'temps', board.shareToken);
    client.send({ type: 'subscribe', id: 't1', dashboardId: board._id, datasourceId: 'temps', sessionToken });
    const subscribed = await client.next((m) => m.type === 'subscribed');
    expect(subscribed).toMatchObject({ id: 't1', kind: 'sse' });
    expect(subscribed.expiresInMs).toBeGreaterThan(250_000);
    await client.next((m) => m.type === 'status' && m.status === 'connected');
    await eventually(() => sse.clients() === 1);
    sse.send('{"celsius": 21.5}');
    sse.send('{"celsius": 22}', 'reading');
    sse.send('not json');
    sse.send('[1,2,3]');
    const third = await client.next((m) => m.type === 'data' && m.seq === 3);
    const data = client.messages.filter((m) => m.type === 'data');
    expect(data.map(({ value, seq, event }) => ({ value, seq, event }))).toEqual([
      { value: { celsius: 21.5 }, seq: 1, event: undefined },
      { value: { celsius: 22 }, seq: 2, event: 'reading' },
      { value: [1, 2, 3], seq: 3, event: undefined },
    ]);
    expect(third.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(client.messages).toContainEqual({
      type: 'error',
      id: 't1',
      code: 'PARSE_ERROR',
      message: 'Upstream message is not valid JSON',
    });
    expect(sse.requests.at(-1)?.headers['x-line-key']).toBe('line-secret-42');
    expect(JSON.stringify(client.messages)).not.toContain('line-secret-42');

    // A second subscriber of the same intent shares the connection and gets the last value first.
    const second = await open();
    second.send({
      type: 'subscribe',
      id: 'again',
      dashboardId: board._id,
      datasourceId: 'temps',
      sessionToken,
    });
    const replay = await second.next((m) => m.type === 'data');
    expect(replay).toMatchObject({ id: 'again', seq: 1, value: [1, 2, 3], replay: true });
    expect(sse.clients()).toBe(1);

    client.send({ type: 'unsubscribe', id: 't1' });
    expect(await client.next((m) => m.type === 'closed')).toEqual({
      type: 'closed',
      id: 't1',
      reason: 'unsubscribed',
      message: 'Unsubscribed',
    });
    second.close();
    await eventually(() => sse.clients() === 0);
  });

  it('WebSocket: frames (binary as UTF-8) reach the socket in order; nothing is sent upstream', async () => {
    const board = await createDashboard('PUBLIC', datasources());
    const client = await open();
    const sessionToken = await mint(board._id, 'feed');
    client.send({ type: 'subscribe', id: 'w', dashboardId: board._id, datasourceId: 'feed', sessionToken });
    await client.next((m) => m.type === 'status' && m.status === 'connected');
    await eventually(() => upstreamWs.clients() === 1);
    for (const value of ['one', 'two']) upstreamWs.send(value);
    upstreamWs.send(Buffer.from('three'));
    await client.next((m) => m.type === 'data' && m.seq === 3);
    expect(client.messages.filter((m) => m.type === 'data').map((m) => m.value)).toEqual([
      'one',
      'two',
      'three',
    ]);
    expect(upstreamWs.received).toEqual([]);
    client.close();
    await eventually(() => upstreamWs.clients() === 0);
  });
});

describe('authorisation (§3.3)', () => {
  it('refuses a missing, invalid, mismatched or stale token with the spec error', async () => {
    const board = await createDashboard('LINK', datasources());
    const client = await open();
    const base = { type: 'subscribe', dashboardId: board._id, datasourceId: 'temps' };
    const closedFor = (id: string) => client.next((m) => m.type === 'closed' && m.id === id);

    client.send({ ...base, id: 'a', sessionToken: '' });
    expect(await closedFor('a')).toMatchObject({
      reason: 'invalid_request',
      message: 'sessionToken is required',
    });
    client.send({ ...base, id: 'b', sessionToken: 'not.a.token' });
    expect(await closedFor('b')).toMatchObject({
      reason: 'denied',
      status: 401,
      message: 'Invalid session token',
    });
    const forFeed = await mint(board._id, 'feed', board.shareToken);
    client.send({ ...base, id: 'c', sessionToken: forFeed });
    expect(await closedFor('c')).toMatchObject({
      reason: 'denied',
      status: 403,
      message: 'Token does not match the requested datasource',
    });
    const stale = await mint(board._id, 'temps', board.shareToken);
    await f.call(
      'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { _id } }',
      { id: board._id },
      'admin',
    );
    client.send({ ...base, id: 'd', sessionToken: stale });
    expect(await closedFor('d')).toMatchObject({
      reason: 'denied',
      status: 403,
      message: 'Share token is stale',
    });
    client.send({ type: 'subscribe', id: 'e', dashboardId: board._id, datasourceId: 'clock' });
    expect(await closedFor('e')).toMatchObject({
      reason: 'denied',
      status: 404,
      message: 'Dashboard not found',
    });
  });
});

describe('revocation (§6)', () => {
  it('rotating the share token closes a live public subscription within 1 s', async () => {
    const board = await createDashboard('LINK', datasources());
    const client = await open();
    const sessionToken = await mint(board._id, 'feed', board.shareToken);
    client.send({
      type: 'subscribe',
      id: 'live',
      dashboardId: board._id,
      datasourceId: 'feed',
      sessionToken,
    });
    await client.next((m) => m.type === 'subscribed');
    // Measured from the mutation's answer (the commit is before it): the spec's bound is 1 s.
    await f.call(
      'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { _id } }',
      { id: board._id },
      'admin',
    );
    const committed = performance.now();
    const closed = await client.next((m) => m.type === 'closed', 5000);
    expect(performance.now() - committed).toBeLessThan(1000);
    expect(closed).toEqual({
      type: 'closed',
      id: 'live',
      reason: 'revoked',
      message: 'Share token is stale',
      cause: 'share_token_rotated',
    });
  });

  it("a deactivated user's stream closes within 1 s", async () => {
    const board = await createDashboard('PRIVATE', datasources(), 'editor');
    const client = await open();
    const sessionToken = await mint(board._id, 'feed', undefined, 'editor');
    client.send({
      type: 'subscribe',
      id: 'mine',
      dashboardId: board._id,
      datasourceId: 'feed',
      sessionToken,
    });
    await client.next((m) => m.type === 'subscribed');
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }',
      { id: f.ids.editor },
      'admin',
    );
    const committed = performance.now();
    const closed = await client.next((m) => m.type === 'closed', 5000);
    expect(performance.now() - committed).toBeLessThan(1000);
    expect(closed).toMatchObject({
      id: 'mine',
      reason: 'revoked',
      message: 'Access revoked',
      cause: 'access_revoked',
    });
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: true) { _id } }',
      { id: f.ids.editor },
      'admin',
    );
  });

  it('deleting the dashboard closes its streams as dashboard_deleted', async () => {
    const board = await createDashboard('PUBLIC', datasources());
    const client = await open();
    client.send({ type: 'subscribe', id: 'm', dashboardId: board._id, datasourceId: 'winder' });
    await client.next((m) => m.type === 'subscribed');
    await f.call('mutation($id: ID!) { deleteDashboard(_id: $id) { _id } }', { id: board._id }, 'admin');
    expect(await client.next((m) => m.type === 'closed')).toMatchObject({
      reason: 'revoked',
      message: 'Dashboard not found',
      cause: 'dashboard_deleted',
    });
  });
});

describe('the machine datasource (§8)', () => {
  it('streams the status shape to anyone who can read the dashboard, nothing else', async () => {
    const board = await createDashboard('LINK', datasources());
    const client = await open();
    client.send({ type: 'subscribe', id: 'nope', dashboardId: board._id, datasourceId: 'winder' });
    expect(await client.next((m) => m.id === 'nope')).toMatchObject({ reason: 'denied', status: 404 });
    client.send({
      type: 'subscribe',
      id: 'feed',
      dashboardId: board._id,
      datasourceId: 'feed',
      auth: { shareToken: board.shareToken },
    });
    expect(await client.next((m) => m.id === 'feed' && m.type === 'closed')).toMatchObject({
      reason: 'invalid_request',
      message: 'sessionToken is required for websocket datasources',
    });
    client.send({
      type: 'subscribe',
      id: 'm1',
      dashboardId: board._id,
      datasourceId: 'winder',
      auth: { shareToken: board.shareToken },
    });
    expect(await client.next((m) => m.id === 'm1')).toEqual({
      type: 'subscribed',
      id: 'm1',
      kind: 'machine',
      expiresInMs: null,
    });
    const data = await client.next((m) => m.id === 'm1' && m.type === 'data');
    expect(Object.keys(data.value as object).sort()).toEqual(
      [
        'controllerState',
        'connection',
        'connected',
        'port',
        'baudRate',
        'firmware',
        'jobState',
        'jobName',
        'linesSent',
        'linesAcknowledged',
        'linesTotal',
        'percent',
        'elapsedSeconds',
        'remainingSeconds',
        'layer',
        'layerCount',
        'layerType',
        'lastError',
        'lastErrorAt',
        'updatedAt',
      ].sort(),
    );
    expect(data.value).toMatchObject({
      controllerState: 'idle',
      connection: 'disconnected',
      connected: false,
      jobState: 'none',
    });

    // A signed-in admin gets the session's expiry; renewing with it answers `renewed`.
    client.send({
      type: 'subscribe',
      id: 'm2',
      dashboardId: board._id,
      datasourceId: 'winder',
      auth: { bearer: f.tokens.admin },
    });
    const subscribed = await client.next((m) => m.id === 'm2');
    expect(subscribed.expiresInMs).toBeGreaterThan(60_000);
    client.send({ type: 'renew', id: 'm2', auth: { bearer: f.tokens.admin } });
    expect(await client.next((m) => m.id === 'm2' && m.type === 'renewed')).toMatchObject({
      type: 'renewed',
    });
  });
});

describe('metrics (§9)', () => {
  it('serves the counters in adminRuntimeMetrics.gateway', async () => {
    const response = await f.call(
      '{ adminRuntimeMetrics { gateway { realtimeConnectionAttempts realtimeConnectionsAccepted realtimeConnectionsRejected realtimeActiveConnections realtimeMessagesIn realtimeMessagesOut realtimeErrorCount httpRequestCount } } }',
      {},
      'admin',
    );
    const gateway = dataOf<{ gateway: { [field: string]: number } }>(response, 'adminRuntimeMetrics').gateway;
    expect(gateway.realtimeConnectionsAccepted).toBeGreaterThan(5);
    expect(gateway.realtimeConnectionsRejected).toBeGreaterThanOrEqual(1);
    const { realtimeConnectionsAccepted: accepted = 0, realtimeConnectionsRejected: rejected = 0 } = gateway;
    expect(gateway.realtimeConnectionAttempts).toBe(accepted + rejected);
    expect(gateway.realtimeMessagesIn).toBeGreaterThan(10);
    expect(gateway.realtimeMessagesOut).toBeGreaterThan(10);
    expect(gateway.realtimeErrorCount).toBeGreaterThan(3);
    expect(gateway.realtimeActiveConnections).toBe(
      sockets.filter((s) => s.ws.readyState === WebSocket.OPEN).length,
    );
  });
});

describe('shutdown (§10)', () => {
  it('tells every subscription server_shutdown and closes the socket 1001', async () => {
    const own = await startFixture(GATEWAY_TEST_LIMITS);
    try {
      const board = dataOf<{ _id: string; shareToken: string }>(
        await own.call(
          'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
          {
            i: {
              title: 'Bye',
              version: 'towpath 0.1.0',
              visibility: 'PUBLIC',
              datasources: [{ id: 'winder', title: 'Winder', type: 'machine' }],
            },
          },
          'admin',
        ),
        'createDashboard',
      );
      const client = await connectRealtime(own.url);
      client.send({ type: 'subscribe', id: 'm', dashboardId: board._id, datasourceId: 'winder' });
      await client.next((m) => m.type === 'subscribed');
      await own.ws.gateway.close();
      expect(await client.next((m) => m.type === 'closed')).toEqual({
        type: 'closed',
        id: 'm',
        reason: 'server_shutdown',
        message: 'Server shutting down',
      });
      expect(await client.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    } finally {
      await own.ws.dispose();
    }
  });
});

describe('limiter scopes (§5.2)', () => {
  it('answers 429 past the connect limit and rate_limited past the public subscribe limit', async () => {
    const own = await startFixture({
      GATEWAY_REALTIME_CONNECT_IP_PER_MIN: '2',
      GATEWAY_REALTIME_PUBLIC_SUBSCRIBE_IP_PER_MIN: '1',
    });
    try {
      const board = dataOf<{ _id: string }>(
        await own.call(
          'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
          {
            i: {
              title: 'Public',
              version: 'towpath 0.1.0',
              visibility: 'PUBLIC',
              datasources: [{ id: 'winder', title: 'Winder', type: 'machine' }],
            },
          },
          'admin',
        ),
        'createDashboard',
      );
      const client = await connectRealtime(own.url);
      await connectRealtime(own.url).then((c) => c.ws.terminate());
      const refused = await rawRequest(`${own.url}/gateway/realtime`, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
        },
      });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.json).toMatchObject({ error: 'Too many realtime connections' });
      for (const id of ['a', 'b'])
        client.send({ type: 'subscribe', id, dashboardId: board._id, datasourceId: 'winder' });
      await client.next((m) => m.id === 'a' && m.type === 'subscribed');
      const limited = await client.next((m) => m.id === 'b');
      expect(limited).toMatchObject({
        type: 'closed',
        reason: 'rate_limited',
        message: 'Too many public realtime subscriptions',
      });
      expect(limited.retryAfterMs).toBeGreaterThan(0);
      client.close();
    } finally {
      await own.ws.dispose();
    }
  });
});
