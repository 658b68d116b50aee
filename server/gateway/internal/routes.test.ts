// The `/internal/gateway/*` door (spec §13.1, §13.3, §13.4) black-box over HTTP against a real
// workstation: methods, bodies, the service token, the per-IP limiters before auth, the revocation
// feed with its cursors and retention, the realtime limiter, and the limiter failing closed.
// Small limits come from the environment; each test speaks from its own client IP (X-Forwarded-For
// through the trusted loopback proxy), so one test's counts never reach another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDoor, type DoorRequest } from '../../testing/gateway-door.ts';
import { dataOf } from '../../testing/graphql.ts';
import { type Fixture, startFixture } from '../../testing/graphql-fixture.ts';
import { encodeCursor } from './revocations.ts';

const LIMIT = 3;
const RETENTION_SECONDS = 120;
const PATHS = ['datasource-introspect', 'revoked-tokens', 'rate-limit/consume'] as const;

let f: Fixture;
let serviceToken: string;
let nextIp = 1;
/** A client address no other test uses. */
const freshIp = () => `203.0.113.${nextIp++}`;

const door = (path: string, request: Partial<DoorRequest> = {}) =>
  callDoor(f.url, path, { token: serviceToken, ip: freshIp(), ...request });

async function metrics() {
  return dataOf<{ api: { authFailureCount: number; requestCount: number; errorCount: number } }>(
    await f.call('{ adminRuntimeMetrics { api { authFailureCount requestCount errorCount } } }', {}, 'admin'),
    'adminRuntimeMetrics',
  ).api;
}

async function auditActions(prefix: string) {
  return dataOf<{ action: string; metadata: Record<string, unknown> }[]>(
    await f.call(
      'query($p: String) { adminAuditEvents(actionPrefix: $p) { action metadata } }',
      { p: prefix },
      'admin',
    ),
    'adminAuditEvents',
  );
}

async function linkDashboard() {
  dataOf(
    await f.call('mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }', {}, 'admin'),
    'setAuthPolicy',
  );
  return dataOf<{ _id: string; shareToken: string }>(
    await f.call(
      'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
      { i: { title: 'Feed', version: 'towpath 0.1.0', visibility: 'LINK' } },
      'editor',
    ),
    'createDashboard',
  );
}

const rotate = async (id: string) =>
  dataOf<{ shareToken: string }>(
    await f.call(
      'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { shareToken } }',
      { id },
      'editor',
    ),
    'rotateDashboardShareToken',
  );

beforeAll(async () => {
  f = await startFixture({
    API_TRUST_PROXY_HOPS: '1',
    GATEWAY_INTROSPECTION_RATE_LIMIT_PER_MIN: String(LIMIT),
    GATEWAY_REVOKED_TOKENS_RATE_LIMIT_PER_MIN: String(LIMIT),
    GATEWAY_REVOKED_TOKENS_MAX_BATCH: '5',
    REALTIME_REVOKE_EVENT_RETENTION_SECONDS: String(RETENTION_SECONDS),
  });
  serviceToken = f.ws.dashboardApi.secrets.GATEWAY_SERVICE_TOKEN;
});

afterAll(() => f?.ws.dispose());

describe('common rules', () => {
  it('answers other methods 405 with Allow: POST', async () => {
    for (const path of PATHS)
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await door(path, { method });
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers.get('allow')).toBe('POST');
        expect(answer.body).toEqual({ error: 'Method not allowed' });
      }
  });

  it('answers 401 for a missing, wrong or non-bearer credential and counts each in authFailureCount', async () => {
    const before = (await metrics()).authFailureCount;
    const refusals = [
      await door('datasource-introspect', { token: null, body: { sessionToken: 'x' } }),
      await door('revoked-tokens', { token: `${serviceToken}x` }),
      await door('rate-limit/consume', { token: 'short' }),
      await fetch(`${f.url}/internal/gateway/revoked-tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${serviceToken}` },
        body: '{}',
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    ];
    for (const answer of refusals)
      expect(answer).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect((await metrics()).authFailureCount).toBe(before + 4);
  });

  it('does not count "Invalid session token" as an auth failure', async () => {
    const before = (await metrics()).authFailureCount;
    const answer = await door('datasource-introspect', { body: { sessionToken: 'not-a-jwt' } });
    expect(answer).toMatchObject({ status: 401, body: { error: 'Invalid session token' } });
    expect((await metrics()).authFailureCount).toBe(before);
  });

  it('refuses bad JSON, non-object bodies and bodies over 256 KiB with the documented errors', async () => {
    for (const path of PATHS) {
      expect(await door(path, { body: '{"sessionToken":' })).toMatchObject({
        status: 400,
        body: { error: 'Invalid JSON body' },
      });
      expect(await door(path, { body: '[1,2]' })).toMatchObject({
        status: 400,
        body: { error: 'Invalid JSON body' },
      });
      expect(await door(path, { body: '' })).toMatchObject({
        status: 400,
        body: { error: 'Invalid JSON body' },
      });
      const big = JSON.stringify({ sessionToken: 'x'.repeat(256 * 1024) });
      expect(await door(path, { body: big })).toMatchObject({
        status: 413,
        body: { error: 'Request body too large' },
      });
    }
    expect(await door('datasource-introspect', { body: {} })).toMatchObject({
      status: 400,
      body: { error: 'sessionToken is required' },
    });
    expect(await door('datasource-introspect', { body: { sessionToken: 42 } })).toMatchObject({
      status: 400,
      body: { error: 'sessionToken is required' },
    });
  });

  it('counts the door in requestCount and errorCount', async () => {
    const before = await metrics();
    await door('revoked-tokens');
    await door('revoked-tokens', { token: null });
    const after = await metrics();
    // The metrics query itself is a request too.
    expect(after.requestCount - before.requestCount).toBe(3);
    expect(after.errorCount - before.errorCount).toBe(1);
  });
});

describe('per-IP limiters before auth', () => {
  for (const [path, action] of [
    ['datasource-introspect', 'gateway.introspection'],
    ['revoked-tokens', 'gateway.revoked_tokens'],
  ] as const)
    it(`${path}: 429 with retryAfterMs past ${LIMIT}/min, unauthenticated calls counted too, audited once per window`, async () => {
      const ip = freshIp();
      const body = { sessionToken: 'x' };
      for (let i = 0; i < LIMIT; i += 1) {
        const answer = await door(path, { ip, token: i === 0 ? null : serviceToken, body });
        expect(answer.status).not.toBe(429);
      }
      const limited = await door(path, { ip, token: null, body });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('Too many requests');
      expect(limited.body.retryAfterMs).toBeGreaterThan(0);
      expect(limited.body.retryAfterMs).toBeLessThanOrEqual(60_000);
      expect((await door(path, { ip, body })).status).toBe(429);
      // Another client is not affected.
      expect((await door(path, { body })).status).not.toBe(429);
      const audited = (await auditActions(`${action}.rate_limited`)).filter((e) => e.metadata.ip === ip);
      expect(audited).toHaveLength(1);
      f.clock.advance(60_000);
      expect((await door(path, { ip, body })).status).not.toBe(429);
    });

  it('the realtime limiter route has no IP limiter', async () => {
    const ip = freshIp();
    for (let i = 0; i < LIMIT + 2; i += 1) {
      const answer = await door('rate-limit/consume', {
        ip,
        body: { scope: 'realtime-connect-ip', key: `k${i}`, limitPerMinute: 5 },
      });
      expect(answer.status).toBe(200);
    }
  });
});

describe('revocation feed', () => {
  it('lists a rotation as share_token_rotated and pages with opaque cursors', async () => {
    const start = (await door('revoked-tokens', { body: { sinceCursor: null } })).body;
    expect(start.cursorExpired).toBe(false);
    const made = await linkDashboard();
    await rotate(made._id);
    const page = (await door('revoked-tokens', { body: { sinceCursor: start.nextCursor } })).body;
    expect(page.cursorExpired).toBe(false);
    expect(page.events).toEqual([
      {
        eventId: expect.stringMatching(/^\d+$/),
        dashboardId: made._id,
        shareTokenVersion: expect.any(Number),
        revokedAt: expect.any(String),
        reason: 'share_token_rotated',
      },
    ]);
    // Nothing new: the same valid cursor comes back.
    const quiet = (await door('revoked-tokens', { body: { sinceCursor: page.nextCursor } })).body;
    expect(quiet).toEqual({ events: [], nextCursor: page.nextCursor, cursorExpired: false });

    for (let i = 0; i < 7; i += 1) await rotate(made._id);
    const first = (await door('revoked-tokens', { body: { sinceCursor: page.nextCursor } })).body;
    expect((first.events as unknown[]).length).toBe(5);
    const second = (await door('revoked-tokens', { body: { sinceCursor: first.nextCursor, limit: 100 } }))
      .body;
    expect((second.events as unknown[]).length).toBe(2);
    const ids = [...(first.events as { eventId: string }[]), ...(second.events as { eventId: string }[])].map(
      (e) => Number(e.eventId),
    );
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(7);
    const one = (await door('revoked-tokens', { body: { sinceCursor: page.nextCursor, limit: 0 } })).body;
    expect((one.events as unknown[]).length).toBe(1);
  });

  it('answers an unreadable or expired cursor from the start of retention with cursorExpired', async () => {
    for (const sinceCursor of ['garbage!', 'eyJ0IjoiMSJ9', 12]) {
      const answer = await door('revoked-tokens', { body: { sinceCursor } });
      expect(answer.status).toBe(200);
      expect(answer.body.cursorExpired).toBe(true);
    }
    const old = encodeCursor({ t: f.clock() - (RETENTION_SECONDS + 1) * 1000, id: 0 });
    const expired = (await door('revoked-tokens', { body: { sinceCursor: old } })).body;
    expect(expired.cursorExpired).toBe(true);
    const fresh = (await door('revoked-tokens', { body: {} })).body;
    expect(fresh.cursorExpired).toBe(false);
    expect(expired.events).toEqual(fresh.events);
  });

  it('refuses a non-integer limit and clamps the rest', async () => {
    for (const limit of [1.5, '3', true])
      expect(await door('revoked-tokens', { body: { limit } })).toMatchObject({
        status: 400,
        body: { error: 'limit must be an integer' },
      });
    expect((await door('revoked-tokens', { body: { limit: -4 } })).status).toBe(200);
  });

  it('drops events past retention when pruned; a cursor on an empty feed names the highest id', async () => {
    const made = await linkDashboard();
    await rotate(made._id);
    f.clock.advance((RETENTION_SECONDS + 1) * 1000);
    const beforePrune = (await door('revoked-tokens', { body: {} })).body;
    // Outside the window already, whether or not pruned.
    expect(beforePrune.events).toEqual([]);
    f.ws.dashboardApi.prune();
    const { store } = f.ws.dashboardApi.services;
    expect(store.dashboards.revocationEventsOf(made._id)).toEqual([]);
    const cursor = JSON.parse(Buffer.from(String(beforePrune.nextCursor), 'base64url').toString());
    expect(cursor).toEqual({ t: f.clock(), id: expect.any(Number) });
    expect(cursor.id).toBeGreaterThan(0);
  });
});

describe('realtime limiter', () => {
  const consume = (body: Record<string, unknown>) => door('rate-limit/consume', { body });

  it('counts per scope and lowercased key in a fixed 60 s window', async () => {
    const key = `Client-${freshIp()}`;
    const first = await consume({ scope: 'realtime-connect-ip', key, limitPerMinute: 2 });
    expect(first.body).toEqual({ allowed: true, retryAfterMs: 0, remaining: 1, reason: 'allowed' });
    const second = await consume({ scope: 'realtime-connect-ip', key: key.toLowerCase(), limitPerMinute: 2 });
    expect(second.body).toEqual({ allowed: true, retryAfterMs: 0, remaining: 0, reason: 'allowed' });
    const third = await consume({ scope: 'realtime-connect-ip', key, limitPerMinute: 2 });
    expect(third.body).toMatchObject({ allowed: false, remaining: 0, reason: 'limited' });
    expect(third.body.retryAfterMs).toBeGreaterThan(0);
    // Another scope, same key: its own count.
    expect(
      (await consume({ scope: 'realtime-public-subscribe-ip', key, limitPerMinute: 2 })).body.allowed,
    ).toBe(true);
    f.clock.advance(60_000);
    expect((await consume({ scope: 'realtime-connect-ip', key, limitPerMinute: 2 })).body.allowed).toBe(true);
  });

  it('defaults limitPerMinute to 1 and clamps it to 1–10000', async () => {
    const key = `share-${freshIp()}`;
    expect((await consume({ scope: 'realtime-public-subscribe-share', key })).body.remaining).toBe(0);
    expect((await consume({ scope: 'realtime-public-subscribe-share', key })).body.allowed).toBe(false);
    expect(
      (await consume({ scope: 'realtime-connect-ip', key: `${key}x`, limitPerMinute: 1e9 })).body.remaining,
    ).toBe(9999);
    expect(
      (await consume({ scope: 'realtime-connect-ip', key: `${key}y`, limitPerMinute: -5 })).body.remaining,
    ).toBe(0);
  });

  it('refuses unknown scopes and bad keys', async () => {
    for (const scope of [undefined, 'realtime-other', 'x'.repeat(97), 7])
      expect(await consume({ scope, key: 'k' })).toMatchObject({
        status: 400,
        body: { error: 'Unsupported scope' },
      });
    for (const key of [undefined, '', 'k'.repeat(513), 5])
      expect(await consume({ scope: 'realtime-connect-ip', key })).toMatchObject({
        status: 400,
        body: { error: 'Invalid key' },
      });
    expect(await consume({ scope: 'realtime-connect-ip', key: 'k', limitPerMinute: 'ten' })).toMatchObject({
      status: 400,
      body: { error: 'limitPerMinute must be an integer' },
    });
  });
});

describe('unexpected faults', () => {
  it('answer 500 "Internal error" without detail', async () => {
    const { dashboards } = f.ws.dashboardApi.services.store;
    const original = dashboards.revocationEventsAfter;
    dashboards.revocationEventsAfter = () => {
      throw new Error('SQLITE_CORRUPT: database disk image is malformed');
    };
    try {
      const answer = await door('revoked-tokens');
      expect(answer).toMatchObject({ status: 500, body: { error: 'Internal error' } });
    } finally {
      dashboards.revocationEventsAfter = original;
    }
    expect((await door('revoked-tokens')).status).toBe(200);
  });
});

describe('limiter storage fault (fail-closed)', () => {
  it('answers 503 on every limited route, audits it, and leaves stored data intact', async () => {
    const made = await linkDashboard();
    const { limiter } = f.ws.dashboardApi.services.store;
    const original = limiter.get;
    limiter.get = () => {
      throw new Error('disk I/O error');
    };
    try {
      expect(await door('datasource-introspect', { body: { sessionToken: 'x' } })).toMatchObject({
        status: 503,
        body: { error: 'Security limiter unavailable' },
      });
      expect(await door('revoked-tokens')).toMatchObject({
        status: 503,
        body: { error: 'Security limiter unavailable' },
      });
      expect(await door('rate-limit/consume', { body: { scope: 'realtime-connect-ip', key: 'k' } })).toEqual(
        expect.objectContaining({
          status: 503,
          body: { error: 'Security limiter unavailable', reason: 'backend_fail_closed' },
        }),
      );
    } finally {
      limiter.get = original;
    }
    for (const action of [
      'gateway.introspection.limiter_unavailable',
      'gateway.revoked_tokens.limiter_unavailable',
      'gateway.realtime.limiter_unavailable',
    ])
      expect((await auditActions(action)).length).toBeGreaterThanOrEqual(1);
    const still = dataOf<{ _id: string }>(
      await f.call('query($id: ID!) { dashboard(_id: $id) { _id } }', { id: made._id }, 'editor'),
      'dashboard',
    );
    expect(still._id).toBe(made._id);
  });
});
