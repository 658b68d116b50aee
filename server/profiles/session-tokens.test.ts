// mintDatasourceSessionToken over real HTTP with a real SQLite file (spec §11, §15, §16, §17): the
// three flows, every denial reason, the rate limits with small limits from the environment, the
// limiter failing closed, and the token itself checked with jose against both secrets.
import { createHash } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceAccountAuthenticator } from '../auth/principal.ts';
import { dataOf, errorOf } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

const MINT =
  'mutation($d: ID!, $s: ID!, $t: String) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: $s, shareToken: $t) { token expiresAt } }';
const MINT_SA = `fsa_${'e'.repeat(24)}.${'f'.repeat(43)}`;
const accounts: ServiceAccountAuthenticator = async (id, secret) => {
  if (id === 'e'.repeat(24) && secret === 'f'.repeat(43))
    return { serviceAccountId: id, scopes: ['datasource:mint'] };
  if (id === 'a'.repeat(24) && secret === 'b'.repeat(43))
    return { serviceAccountId: id, scopes: ['ops:read'] };
  return null;
};

let f: Fixture;
let bearerId: string;
let privateBearerId: string;
let basicId: string;
let brokerId: string;
let privateBrokerId: string;
const ids: Record<string, string> = {};
const share: Record<string, string> = {};

const HTTP = {
  id: 'cells',
  title: 'Cells',
  type: 'http',
  settings: { url: 'http://10.0.0.20:8080/api/cells' },
};

async function dashboard(name: string, visibility: string, datasources: unknown[]) {
  const made = await f.call(
    'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id shareToken } }',
    { i: { title: name, version: 'towpath 0.1.0', visibility, datasources } },
    'editor',
  );
  const view = dataOf<{ _id: string; shareToken: string | null }>(made, 'createDashboard');
  ids[name] = view._id;
  if (view.shareToken) share[name] = view.shareToken;
}

async function profile(input: Record<string, unknown>) {
  const made = await f.call(
    'mutation($i: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $i) { _id } }',
    { i: input },
    'admin',
  );
  return dataOf<{ _id: string }>(made, 'adminCreateCredentialProfile')._id;
}

async function broker(input: Record<string, unknown>) {
  const made = await f.call(
    'mutation($i: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $i) { _id } }',
    { i: input },
    'admin',
  );
  return dataOf<{ _id: string }>(made, 'adminCreateBrokerProfile')._id;
}

type Caller = Parameters<Fixture['call']>[2];
const mint = (d: string, s: string, as: Caller = 'anonymous', t?: string) => f.call(MINT, { d, s, t }, as);
const tokenOf = async (d: string, s: string, as: Caller = 'anonymous', t?: string) =>
  dataOf<{ token: string; expiresAt: string }>(await mint(d, s, as, t), 'mintDatasourceSessionToken');

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

beforeAll(async () => {
  f = await startFixture(
    {
      DATASOURCE_SESSION_TTL_SECONDS: '120',
      DATASOURCE_TOKEN_MINT_RATE_LIMIT_USER_PER_MIN: '4',
      DATASOURCE_TOKEN_MINT_RATE_LIMIT_PUBLIC_IP_PER_MIN: '20',
      DATASOURCE_TOKEN_MINT_RATE_LIMIT_SHARE_TOKEN_PER_MIN: '3',
    },
    { dashboardApi: { serviceAccounts: accounts } },
  );
  await f.call('mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }', {}, 'admin');
  bearerId = await profile({
    name: 'Bearer',
    type: 'BEARER',
    secret: { token: 'tok' },
    allowPublicUse: true,
  });
  privateBearerId = await profile({ name: 'Private bearer', type: 'BEARER', secret: { token: 'tok' } });
  basicId = await profile({
    name: 'Basic',
    type: 'BASIC',
    secret: { username: 'u', password: 'p' },
    allowPublicUse: true,
  });
  brokerId = await broker({
    name: 'Broker',
    brokerUrl: 'mqtt://broker',
    allowPublicUse: true,
    credentialProfileId: basicId,
    topicAllowlist: ['shop/+/resin', 'line/#'],
  });
  privateBrokerId = await broker({ name: 'Private broker', brokerUrl: 'mqtt://broker' });
  const ds = (id: string, type: string, settings: Record<string, unknown>, extra = {}) => ({
    id,
    title: id,
    type,
    settings,
    ...extra,
  });
  const all = [
    HTTP,
    ds('bearer', 'http', {
      url: 'http://10.0.0.20/a',
      credentialProfileId: bearerId,
      method: 'POST',
      body: 'x',
    }),
    ds('private-cred', 'http', { url: 'http://10.0.0.20/b', credentialProfileId: privateBearerId }),
    ds('missing-cred', 'http', { url: 'http://10.0.0.20/c', credentialProfileId: 'a'.repeat(24) }),
    ds('basic-query', 'sse', {
      url: 'http://10.0.0.20/d',
      credentialProfileId: basicId,
      authPlacement: 'query',
      queryParamName: 'k',
    }),
    ds('off', 'http', { url: 'http://10.0.0.20/e' }, { enabled: false }),
    ds('clock', 'clock', {}),
    ds('static', 'static', { value: 1 }),
    ds('machine', 'machine', {}),
    ds('resin', 'mqtt', { brokerProfileId: brokerId, topic: 'shop/winder1/resin' }),
    ds('other-topic', 'mqtt', { brokerProfileId: brokerId, topic: 'office/temp' }),
    ds('private-broker', 'mqtt', { brokerProfileId: privateBrokerId, topic: 'x' }),
    ds('no-broker', 'mqtt', { brokerProfileId: 'b'.repeat(24), topic: 'x' }),
    ds('feed', 'websocket', { url: 'ws://10.0.0.20/f' }),
  ];
  await dashboard('private', 'PRIVATE', all);
  await dashboard('link', 'LINK', all);
  await dashboard('public', 'PUBLIC', all);
});

afterAll(() => f?.ws.dispose());

// Every test starts in fresh rate-limit windows.
beforeEach(() => f.clock.advance(61_000));

describe('the token', () => {
  it('is signed with JWT_GATEWAY_SECRET, not JWT_SECRET, with exactly the spec claims (user flow)', async () => {
    const { token, expiresAt } = await tokenOf(ids.private ?? '', 'bearer', 'editor');
    const { JWT_GATEWAY_SECRET, JWT_SECRET } = f.ws.dashboardApi.secrets;
    const currentDate = new Date(f.clock());
    const { payload, protectedHeader } = await jwtVerify(
      token,
      new TextEncoder().encode(JWT_GATEWAY_SECRET),
      {
        currentDate,
        issuer: 'towpath-api',
        audience: 'towpath-gateway',
      },
    );
    await expect(jwtVerify(token, new TextEncoder().encode(JWT_SECRET), { currentDate })).rejects.toThrow();
    expect(protectedHeader.alg).toBe('HS256');
    expect(Object.keys(payload).sort()).toEqual(
      [
        'aud',
        'credentialProfileId',
        'dashboardId',
        'datasourceId',
        'exp',
        'iat',
        'intentHash',
        'iss',
        'jti',
        'role',
        'scope',
        'sub',
      ].sort(),
    );
    expect(payload).toMatchObject({
      sub: f.ids.editor,
      dashboardId: ids.private,
      datasourceId: 'bearer',
      credentialProfileId: bearerId,
      scope: 'datasource:fetch',
      role: 'editor',
    });
    expect(payload.jti).toMatch(/^[0-9a-f]{32}$/);
    expect(payload.iat).toBe(Math.floor(f.clock() / 1000));
    expect(payload.exp).toBe((payload.iat ?? 0) + 120);
    expect(expiresAt).toBe(new Date((payload.exp ?? 0) * 1000).toISOString());
    const intent = {
      protocol: 'http',
      url: 'http://10.0.0.20/a',
      method: 'POST',
      body: 'x',
      parser: 'json',
      timeoutMs: 15000,
      headers: {},
    };
    expect(payload.intentHash).toBe(createHash('sha256').update(sortedJson(intent)).digest('hex'));
  });

  it('carries the stream scope, the share token version and the public role in the public flow', async () => {
    const { token } = await tokenOf(ids.link ?? '', 'feed', 'anonymous', share.link);
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({
      sub: 'public',
      role: 'public',
      scope: 'datasource:stream',
      shareTokenVersion: 1,
    });
    expect(payload.credentialProfileId).toBeNull();
    const intent = {
      protocol: 'websocket',
      url: 'ws://10.0.0.20/f',
      parser: 'json',
      headers: {},
      idleTimeoutMs: 300000,
      authPlacement: 'header',
      queryParamName: null,
      protocols: [],
    };
    expect(payload.intentHash).toBe(createHash('sha256').update(sortedJson(intent)).digest('hex'));
    const mqtt = decodeJwt((await tokenOf(ids.public ?? '', 'resin')).token);
    expect(mqtt).toMatchObject({ sub: 'public', scope: 'datasource:stream', credentialProfileId: null });
  });

  it('uses the public flow for a viewer without ACL, and the user flow for admins', async () => {
    expect(decodeJwt((await tokenOf(ids.public ?? '', 'cells', 'viewer')).token).sub).toBe('public');
    const admin = decodeJwt((await tokenOf(ids.private ?? '', 'cells', 'admin')).token);
    expect(admin).toMatchObject({ sub: f.ids.admin, role: 'admin' });
    expect(admin.shareTokenVersion).toBeUndefined();
  });

  it('mints for service accounts with DATASOURCE_MINT in the public flow only', async () => {
    const token = decodeJwt((await tokenOf(ids.public ?? '', 'cells', { token: MINT_SA })).token);
    expect(token).toMatchObject({ sub: `sa:${'e'.repeat(24)}`, role: 'service', shareTokenVersion: 1 });
    expect(errorOf(await mint(ids.public ?? '', 'cells', 'sa'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Service account lacks scope DATASOURCE_MINT',
    });
    expect(errorOf(await mint(ids.private ?? '', 'cells', { token: MINT_SA }))?.message).toBe(
      'Datasource token denied: DASHBOARD_NOT_FOUND',
    );
  });
});

describe('denials', () => {
  it.each([
    ['private', 'cells', 'anonymous', undefined, 'DASHBOARD_NOT_FOUND'],
    ['link', 'cells', 'anonymous', undefined, 'DASHBOARD_NOT_FOUND'],
    ['missing', 'cells', 'anonymous', undefined, 'DASHBOARD_NOT_FOUND'],
    ['link', 'cells', 'anonymous', 'wrong', 'SHARE_TOKEN_INVALID'],
    ['missing', 'cells', 'anonymous', 'wrong', 'SHARE_TOKEN_INVALID'],
    ['public', 'cells', 'viewer', 'wrong', 'SHARE_TOKEN_INVALID'],
    ['private', 'nope', 'editor', undefined, 'DATASOURCE_NOT_FOUND'],
    ['private', 'off', 'editor', undefined, 'DATASOURCE_DISABLED'],
    ['private', 'clock', 'editor', undefined, 'UNSUPPORTED_DATASOURCE'],
    ['private', 'static', 'editor', undefined, 'UNSUPPORTED_DATASOURCE'],
    ['private', 'machine', 'editor', undefined, 'UNSUPPORTED_DATASOURCE'],
    ['private', 'basic-query', 'editor', undefined, 'INVALID_DATASOURCE'],
    ['private', 'missing-cred', 'editor', undefined, 'CREDENTIAL_PROFILE_NOT_FOUND'],
    ['private', 'no-broker', 'editor', undefined, 'BROKER_PROFILE_NOT_FOUND'],
    ['public', 'private-cred', 'anonymous', undefined, 'PUBLIC_USE_NOT_ALLOWED'],
    ['public', 'private-broker', 'anonymous', undefined, 'PUBLIC_USE_NOT_ALLOWED'],
    ['private', 'other-topic', 'editor', undefined, 'TOPIC_NOT_ALLOWED'],
  ] as const)('%s/%s as %s (share token %s): %s', async (name, datasource, as, token, reason) => {
    const id = ids[name] ?? 'f'.repeat(24);
    const response = await mint(id, datasource, as, token === 'wrong' ? 'x'.repeat(43) : token);
    expect(errorOf(response)).toEqual({ code: 'FORBIDDEN', message: `Datasource token denied: ${reason}` });
    expect(response.errors?.[0]?.extensions?.reason).toBe(reason);
  });

  it('lets the user flow use profiles that are not public', async () => {
    expect(decodeJwt((await tokenOf(ids.private ?? '', 'private-cred', 'editor')).token).sub).toBe(
      f.ids.editor,
    );
    expect(decodeJwt((await tokenOf(ids.private ?? '', 'private-broker', 'editor')).token).sub).toBe(
      f.ids.editor,
    );
  });
});

describe('rate limits', () => {
  async function auditCount(action: string) {
    const events = await f.call(
      `{ adminAuditEvents(limit: 500, actionPrefix: "${action}") { metadata } }`,
      {},
      'admin',
    );
    return dataOf<{ metadata: Record<string, unknown> }[]>(events, 'adminAuditEvents');
  }

  it('limits the user flow per user, audited once per window', async () => {
    for (let i = 0; i < 4; i += 1) await tokenOf(ids.private ?? '', 'cells', 'editor');
    const before = (await auditCount('datasource.session_token.rate_limited')).length;
    f.clock.advance(15_000);
    const refused = await mint(ids.private ?? '', 'cells', 'editor');
    expect(errorOf(refused)).toEqual({
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many datasource token requests. Try again in 45 seconds.',
    });
    expect(refused.errors?.[0]?.extensions?.retryAfterSeconds).toBe(45);
    await mint(ids.private ?? '', 'cells', 'editor');
    const after = await auditCount('datasource.session_token.rate_limited');
    // One per key (user, user+dashboard) for the window, not one per refusal.
    expect(after.length - before).toBe(2);
    expect(after[0]?.metadata).toMatchObject({ flow: 'user' });
    f.clock.advance(45_000);
    expect(errorOf(await mint(ids.private ?? '', 'cells', 'editor'))).toBeUndefined();
  });

  it('limits mints per share token, counted before the other checks', async () => {
    for (let i = 0; i < 3; i += 1)
      expect(errorOf(await mint(ids.link ?? '', 'nope', 'anonymous', share.link))?.code).toBe('FORBIDDEN');
    expect(errorOf(await mint(ids.link ?? '', 'cells', 'anonymous', share.link))?.code).toBe(
      'TOO_MANY_REQUESTS',
    );
    const events = await auditCount('datasource.session_token.rate_limited');
    expect(events[0]?.metadata).toEqual({ flow: 'public', limiter: 'share_token' });
  });

  it('fails closed when the limiter storage fails', async () => {
    const { limiter } = f.ws.dashboardApi.services.store;
    const original = limiter.get;
    limiter.get = () => {
      throw new Error('disk I/O error');
    };
    try {
      expect(errorOf(await mint(ids.public ?? '', 'cells'))).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'Security limiter unavailable',
      });
    } finally {
      limiter.get = original;
    }
    expect((await auditCount('datasource.session_token.limiter_unavailable'))[0]?.metadata).toEqual({
      flow: 'public',
    });
  });

  it('counts successes and failures in the runtime metrics', async () => {
    const read = async () =>
      dataOf<{ api: { datasourceMintSuccessCount: number; datasourceMintFailureCount: number } }>(
        await f.call(
          '{ adminRuntimeMetrics { api { datasourceMintSuccessCount datasourceMintFailureCount } } }',
          {},
          'admin',
        ),
        'adminRuntimeMetrics',
      ).api;
    const before = await read();
    await tokenOf(ids.public ?? '', 'cells');
    await mint(ids.public ?? '', 'nope');
    const after = await read();
    expect(after.datasourceMintSuccessCount - before.datasourceMintSuccessCount).toBe(1);
    expect(after.datasourceMintFailureCount - before.datasourceMintFailureCount).toBe(1);
  });
});
