// The HTTP fetch relay (gateway spec §2) and the egress defaults (§7) against real workstations: one
// allowed to reach loopback (where the test's upstream server lives), one with the defaults.
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';
import { rawRequest } from '../testing/http.ts';
import { connectRealtime, GATEWAY_TEST_LIMITS } from '../testing/realtime.ts';

let allowed: Fixture;
let strict: Fixture;
let upstream: Server;
let upstreamUrl: string;
const seen: { url: string; headers: Record<string, unknown> }[] = [];

async function board(f: Fixture, datasources: unknown[]) {
  return dataOf<{ _id: string; shareToken: string }>(
    await f.call(
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
      { i: { title: `B ${Math.random()}`, version: 'towpath 0.1.0', visibility: 'PUBLIC', datasources } },
      'admin',
    ),
    'createDashboard',
  );
}

async function mint(f: Fixture, dashboardId: string, datasourceId: string) {
  const response = await f.call(
    'mutation($d: ID!, $s: ID!) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s) { token } }',
    { d: dashboardId, s: datasourceId },
  );
  return dataOf<{ token: string }>(response, 'mintDatasourceSessionToken').token;
}

const relay = (f: Fixture, body: unknown, method = 'POST', headers: Record<string, string> = {}) =>
  rawRequest(`${f.url}/gateway/http/fetch`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  upstream = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: { ...request.headers } });
    if (request.url === '/machines') {
      response.writeHead(200, {
        'content-type': 'application/json',
        etag: '"a1"',
        'content-encoding': 'gzip',
        'x-internal': 'no',
      });
      response.end(gzipSync(JSON.stringify({ machines: [{ id: 'w1', rpm: 12 }] })));
    } else if (request.url === '/csv') {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.end('cell,state\r\n1,running\r\n2\r\n');
    } else if (request.url === '/broken') {
      response.writeHead(500);
      response.end('no');
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: 'http://169.254.169.254/' });
      response.end();
    } else {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('not json');
    }
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  allowed = await startFixture(GATEWAY_TEST_LIMITS);
  // The same limits, but the egress defaults: loopback refused.
  strict = await startFixture({ ...GATEWAY_TEST_LIMITS, GATEWAY_EGRESS_ALLOW: '' });
}, 60_000);

afterAll(async () => {
  await allowed?.ws.dispose();
  await strict?.ws.dispose();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('fetch relay (§2)', () => {
  it('relays an http datasource with the credential applied and answers the §2.3 shape', async () => {
    const credential = dataOf<{ _id: string }>(
      await allowed.call(
        'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
        { i: { name: 'Cells', type: 'BEARER', secret: { token: 'cell-token-7' }, allowPublicUse: true } },
        'admin',
      ),
      'adminCreateCredentialProfile',
    )._id;
    const b = await board(allowed, [
      {
        id: 'cells',
        title: 'Cells',
        type: 'http',
        settings: { url: `${upstreamUrl}/machines`, credentialProfileId: credential },
      },
      { id: 'csv', title: 'Csv', type: 'http', settings: { url: `${upstreamUrl}/csv`, parser: 'csv' } },
    ]);
    const token = await mint(allowed, b._id, 'cells');
    const response = await relay(allowed, { sessionToken: token, dashboardId: b._id }, 'POST', {
      cookie: 'session=abc',
      'x-forwarded-user': 'me',
    });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json as Record<string, unknown>;
    expect(body).toMatchObject({
      dashboardId: b._id,
      datasourceId: 'cells',
      status: 200,
      headers: { 'content-type': 'application/json', etag: '"a1"' },
      parser: 'json',
      body: { machines: [{ id: 'w1', rpm: 12 }] },
      bytes: JSON.stringify({ machines: [{ id: 'w1', rpm: 12 }] }).length,
    });
    expect(body.headers).not.toHaveProperty('x-internal');
    expect(JSON.stringify(body)).not.toContain('cell-token-7');
    const sent = seen.at(-1)?.headers ?? {};
    expect(sent.authorization).toBe('Bearer cell-token-7');
    expect(sent.cookie).toBeUndefined();
    expect(sent['x-forwarded-user']).toBeUndefined();
    expect(sent['user-agent']).toMatch(/^towpath-gateway\//);

    const csv = await relay(allowed, { sessionToken: await mint(allowed, b._id, 'csv') });
    expect((csv.json as { body: unknown }).body).toEqual([
      { cell: '1', state: 'running' },
      { cell: '2', state: '' },
    ]);
  });

  it('answers bad requests and upstream failures with the exact errors', async () => {
    const b = await board(allowed, [
      { id: 'broken', title: 'Broken', type: 'http', settings: { url: `${upstreamUrl}/broken` } },
      { id: 'moved', title: 'Moved', type: 'http', settings: { url: `${upstreamUrl}/moved` } },
      { id: 'text', title: 'Text', type: 'http', settings: { url: `${upstreamUrl}/text` } },
      { id: 'stream', title: 'Stream', type: 'sse', settings: { url: `${upstreamUrl}/s` } },
    ]);
    const get = await rawRequest(`${allowed.url}/gateway/http/fetch`);
    expect([get.status, get.headers.allow, get.json]).toEqual([405, 'POST', { error: 'Method not allowed' }]);
    expect((await relay(allowed, '{nope')).json).toEqual({ error: 'Invalid JSON body' });
    expect((await relay(allowed, '[]')).status).toBe(400);
    const big = await relay(allowed, { sessionToken: 'x'.repeat(17 * 1024) });
    expect([big.status, big.json]).toEqual([413, { error: 'Request body too large' }]);
    expect((await relay(allowed, {})).json).toEqual({ error: 'sessionToken is required' });
    const invalid = await relay(allowed, { sessionToken: 'garbage' });
    expect([invalid.status, invalid.json]).toEqual([401, { error: 'Invalid session token' }]);
    const stream = await relay(allowed, { sessionToken: await mint(allowed, b._id, 'stream') });
    expect([stream.status, stream.json]).toEqual([403, { error: 'Token scope does not allow fetch' }]);
    const broken = await relay(allowed, { sessionToken: await mint(allowed, b._id, 'broken') });
    expect([broken.status, broken.json]).toEqual([
      502,
      { error: 'Upstream responded with status 500', upstreamStatus: 500 },
    ]);
    const moved = await relay(allowed, { sessionToken: await mint(allowed, b._id, 'moved') });
    expect(moved.json).toEqual({ error: 'Upstream responded with status 302', upstreamStatus: 302 });
    const text = await relay(allowed, { sessionToken: await mint(allowed, b._id, 'text') });
    expect([text.status, text.json]).toEqual([502, { error: 'Upstream response is not valid JSON' }]);
  });
});

describe('egress defaults (§7)', () => {
  it('refuses loopback, metadata and localhost upstreams unless allowed', async () => {
    const b = await board(strict, [
      { id: 'self', title: 'Self', type: 'http', settings: { url: `${upstreamUrl}/machines` } },
      { id: 'meta', title: 'Meta', type: 'http', settings: { url: 'http://169.254.169.254/latest' } },
      { id: 'named', title: 'Named', type: 'sse', settings: { url: 'http://localhost:8000/events' } },
      { id: 'ws', title: 'Ws', type: 'websocket', settings: { url: 'ws://127.0.0.1:8000/' } },
    ]);
    const self = await relay(strict, { sessionToken: await mint(strict, b._id, 'self') });
    expect([self.status, self.json]).toEqual([
      403,
      { error: 'Upstream address refused: 127.0.0.1 (loopback)' },
    ]);
    const meta = await relay(strict, { sessionToken: await mint(strict, b._id, 'meta') });
    expect([meta.status, meta.json]).toEqual([
      403,
      { error: 'Upstream address refused: 169.254.169.254 (metadata)' },
    ]);

    const client = await connectRealtime(strict.url);
    for (const id of ['named', 'ws'])
      client.send({
        type: 'subscribe',
        id,
        dashboardId: b._id,
        datasourceId: id,
        sessionToken: await mint(strict, b._id, id),
      });
    expect(await client.next((m) => m.id === 'named')).toEqual({
      type: 'closed',
      id: 'named',
      reason: 'egress_refused',
      message: 'Upstream address refused: localhost resolves to 127.0.0.1 (loopback)',
    });
    expect(await client.next((m) => m.id === 'ws')).toMatchObject({
      reason: 'egress_refused',
      message: 'Upstream address refused: 127.0.0.1 (loopback)',
    });
    client.close();
    // Audited once per dashboard, datasource and address (§11), however often it is refused.
    await relay(strict, { sessionToken: await mint(strict, b._id, 'self') });
    const audit = await strict.call(
      '{ adminAuditEvents(actionPrefix: "gateway.egress.refused") { targetId metadata } }',
      {},
      'admin',
    );
    const rows = (audit.data?.adminAuditEvents ?? []) as {
      targetId: string;
      metadata: Record<string, unknown>;
    }[];
    expect(rows.filter((r) => r.metadata.datasourceId === 'self')).toHaveLength(1);
    expect(rows.map((r) => r.metadata.datasourceId).sort()).toEqual(['meta', 'named', 'self', 'ws']);

    // The same loopback upstream through the workstation that allows loopback.
    const ok = await board(allowed, [
      { id: 'self', title: 'Self', type: 'http', settings: { url: `${upstreamUrl}/machines` } },
    ]);
    expect((await relay(allowed, { sessionToken: await mint(allowed, ok._id, 'self') })).status).toBe(200);
  });
});
