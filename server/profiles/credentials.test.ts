// Credential profiles over real HTTP with a real SQLite file (spec §10.1, §14, §17, §19): every rule,
// every caller, and that no secret ever leaves sealed storage — not in answers, audit, logs or the
// database file and its WAL.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';
import { SecretSealer } from './envelope.ts';

const KEY = randomBytes(32).toString('base64url');
const FIELDS =
  '_id name type description allowPublicUse metadata secretShape secretNeedsReentry createdAt updatedAt';
const CREATE = `mutation($input: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: CredentialProfileUpdateInput!) { adminUpdateCredentialProfile(_id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { adminDeleteCredentialProfile(_id: $id) { ${FIELDS} } }`;
const LIST = `{ credentialProfiles { ${FIELDS} } }`;

// Every secret value used below; none may appear anywhere outside the sealed envelope.
const SECRETS = {
  bearer: 'bearer-SECRET-7f3a9c',
  header: 'header-SECRET-51be02',
  user: 'plc-user-SECRET-1d',
  password: 'plc-password-SECRET-9e',
  rotated: 'rotated-SECRET-c41f',
};

type Profile = Record<string, unknown> & { _id: string; name: string };

let f: Fixture;
const logLines: string[] = [];

async function create(input: Record<string, unknown>): Promise<Profile> {
  const response = await f.call(CREATE, { input }, 'admin');
  if (response.errors) throw new Error(response.raw);
  expect(response.raw).not.toMatch(/SECRET/);
  return response.data?.adminCreateCredentialProfile as Profile;
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  f = await startFixture({ CREDENTIAL_ENCRYPTION_KEY: KEY }, { logger: pino({ level: 'trace' }, sink) });
});

afterAll(() => f?.ws.dispose());

describe('who may call', () => {
  it('lists for editors and admins only; anonymous and service accounts are UNAUTHENTICATED', async () => {
    expect(errorOf(await f.call(LIST, {}, 'anonymous'))?.code).toBe('UNAUTHENTICATED');
    expect(errorOf(await f.call(LIST, {}, 'sa'))?.code).toBe('UNAUTHENTICATED');
    expect(errorOf(await f.call(LIST, {}, 'viewer'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Editor role required',
    });
    expect(errorOf(await f.call(LIST, {}, 'editor'))).toBeUndefined();
  });

  it('changes only for admins', async () => {
    const input = { name: 'Nobody', type: 'NONE' };
    expect(errorOf(await f.call(CREATE, { input }, 'editor'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Admin role required',
    });
    expect(errorOf(await f.call(CREATE, { input }, 'sa'))?.code).toBe('UNAUTHENTICATED');
    expect(errorOf(await f.call(DELETE, { id: 'f'.repeat(24) }, 'viewer'))?.code).toBe('FORBIDDEN');
  });
});

describe('create', () => {
  it('seals each type and shows only the shape of its secret', async () => {
    const bearer = await create({
      name: '  PLC bearer  ',
      type: 'BEARER',
      secret: { token: SECRETS.bearer },
    });
    expect(bearer).toMatchObject({
      name: 'PLC bearer',
      type: 'BEARER',
      description: '',
      allowPublicUse: false,
      metadata: {},
      secretShape: { token: '***' },
      secretNeedsReentry: false,
    });
    const header = await create({
      name: 'Header key',
      type: 'HEADER',
      metadata: { headerName: 'X-Api-Key' },
      secret: { headerValue: SECRETS.header },
      allowPublicUse: true,
    });
    expect(header).toMatchObject({
      metadata: { headerName: 'X-Api-Key' },
      secretShape: { headerValue: '***' },
    });
    const basic = await create({
      name: 'Basic PLC',
      type: 'BASIC',
      secret: { username: SECRETS.user, password: SECRETS.password },
    });
    expect(basic.secretShape).toEqual({ username: '***', password: '***' });
    const none = await create({ name: 'Open feed', type: 'NONE', secret: {} });
    expect(none.secretShape).toBeNull();
  });

  it.each([
    [{ name: '', type: 'NONE' }, 'Credential profile name must be 1–100 characters'],
    [{ name: 'x'.repeat(101), type: 'NONE' }, 'Credential profile name must be 1–100 characters'],
    [
      { name: 'N', type: 'NONE', secret: { token: 'a' } },
      'Invalid secret for NONE profile: unknown key token',
    ],
    [{ name: 'B', type: 'BEARER' }, 'Invalid secret for BEARER profile: token is required'],
    [
      { name: 'B', type: 'BEARER', secret: { token: '' } },
      'Invalid secret for BEARER profile: token must be a non-empty string',
    ],
    [
      { name: 'B', type: 'BEARER', secret: { token: 5 } },
      'Invalid secret for BEARER profile: token must be a non-empty string',
    ],
    [
      { name: 'B', type: 'BASIC', secret: { username: 'u' } },
      'Invalid secret for BASIC profile: password is required',
    ],
    [
      { name: 'B', type: 'BASIC', secret: { username: 'u', password: 'p', realm: 'r' } },
      'Invalid secret for BASIC profile: unknown key realm',
    ],
    [
      { name: 'H', type: 'HEADER', secret: { headerValue: 'v' } },
      'HEADER profiles need metadata.headerName, an HTTP header name',
    ],
    [
      { name: 'H', type: 'HEADER', metadata: { headerName: 'Bad Header' }, secret: { headerValue: 'v' } },
      'HEADER profiles need metadata.headerName, an HTTP header name',
    ],
  ])('refuses %j', async (input, message) => {
    expect(errorOf(await f.call(CREATE, { input }, 'admin'))).toEqual({ code: 'BAD_USER_INPUT', message });
  });

  it('refuses a name another profile has, ignoring case', async () => {
    await create({ name: 'Line 3 gateway', type: 'NONE' });
    expect(
      errorOf(await f.call(CREATE, { input: { name: 'LINE 3 GATEWAY', type: 'NONE' } }, 'admin')),
    ).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'A credential profile with this name already exists',
    });
  });

  it('lists by name', async () => {
    const names = dataOf<Profile[]>(await f.call(LIST, {}, 'editor'), 'credentialProfiles').map(
      (p) => p.name,
    );
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    expect(names).toContain('PLC bearer');
  });
});

describe('update', () => {
  it('keeps omitted fields, replaces the secret when given, and needs a secret to change type', async () => {
    const profile = await create({ name: 'Changer', type: 'BEARER', secret: { token: SECRETS.bearer } });
    f.clock.advance(1000);
    const renamed = await f.call(UPDATE, { id: profile._id, input: { description: 'Cell 4' } }, 'admin');
    expect(renamed.data?.adminUpdateCredentialProfile).toMatchObject({
      name: 'Changer',
      type: 'BEARER',
      description: 'Cell 4',
      secretShape: { token: '***' },
    });
    expect(dataOf<Profile>(renamed, 'adminUpdateCredentialProfile').updatedAt).not.toBe(profile.updatedAt);
    expect(errorOf(await f.call(UPDATE, { id: profile._id, input: { type: 'BASIC' } }, 'admin'))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'secret is required when type changes',
    });
    const basic = await f.call(
      UPDATE,
      {
        id: profile._id,
        input: { type: 'BASIC', secret: { username: SECRETS.user, password: SECRETS.rotated } },
      },
      'admin',
    );
    expect(basic.data?.adminUpdateCredentialProfile).toMatchObject({
      type: 'BASIC',
      secretShape: { username: '***', password: '***' },
    });
    const none = await f.call(UPDATE, { id: profile._id, input: { type: 'NONE' } }, 'admin');
    expect(none.data?.adminUpdateCredentialProfile).toMatchObject({ type: 'NONE', secretShape: null });
    expect(f.ws.dashboardApi.services.store.credentialProfiles.byId(profile._id)?.secretEnvelope).toBeNull();
  });

  it('answers NOT_FOUND for an unknown id and refuses a taken name', async () => {
    expect(errorOf(await f.call(UPDATE, { id: 'e'.repeat(24), input: { name: 'x' } }, 'admin'))).toEqual({
      code: 'NOT_FOUND',
      message: 'Credential profile not found',
    });
    const profile = await create({ name: 'Second', type: 'NONE' });
    expect(
      errorOf(await f.call(UPDATE, { id: profile._id, input: { name: 'plc BEARER' } }, 'admin'))?.message,
    ).toBe('A credential profile with this name already exists');
    // Its own name in another case is not a clash.
    expect(
      errorOf(await f.call(UPDATE, { id: profile._id, input: { name: 'SECOND' } }, 'admin')),
    ).toBeUndefined();
  });
});

describe('delete', () => {
  it('returns the profile, then it is gone; the broker that used it loses its credential', async () => {
    const profile = await create({ name: 'Doomed', type: 'BASIC', secret: { username: 'u', password: 'p' } });
    const { store } = f.ws.dashboardApi.services;
    const now = new Date().toISOString();
    store.brokerProfiles.insert({
      id: 'b'.repeat(24),
      name: 'Broker',
      protocol: 'mqtt',
      description: '',
      brokerUrl: 'mqtt://broker.local',
      tls: null,
      credentialProfileId: profile._id,
      allowPublicUse: false,
      topicAllowlist: [],
      createdAt: now,
      updatedAt: now,
    });
    const deleted = await f.call(DELETE, { id: profile._id }, 'admin');
    expect(deleted.data?.adminDeleteCredentialProfile).toMatchObject({ _id: profile._id, name: 'Doomed' });
    expect(store.brokerProfiles.byId('b'.repeat(24))?.credentialProfileId).toBeNull();
    expect(errorOf(await f.call(DELETE, { id: profile._id }, 'admin'))).toEqual({
      code: 'NOT_FOUND',
      message: 'Credential profile not found',
    });
  });
});

describe('at rest', () => {
  it('opens the envelope with the configured key only, and only for its own profile', async () => {
    const profile = await create({ name: 'Sealed', type: 'BEARER', secret: { token: SECRETS.bearer } });
    const row = f.ws.dashboardApi.services.store.credentialProfiles.byId(profile._id);
    const envelope = JSON.parse(row?.secretEnvelope ?? '{}');
    expect(Object.keys(envelope).sort()).toEqual(['alg', 'ct', 'iv', 'keyId', 'tag', 'v']);
    expect(envelope).toMatchObject({ v: 1, alg: 'aes-256-gcm' });
    expect(Buffer.from(envelope.iv, 'base64url')).toHaveLength(12);
    const sealer = new SecretSealer(KEY);
    expect(envelope.keyId).toBe(sealer.keyId);
    expect(sealer.open(profile._id, row?.secretEnvelope ?? '')).toEqual({ token: SECRETS.bearer });
    expect(() => sealer.open('0'.repeat(24), row?.secretEnvelope ?? '')).toThrow();
    const other = new SecretSealer(randomBytes(32).toString('base64'));
    expect(() => other.open(profile._id, row?.secretEnvelope ?? '')).toThrow(/another key|sealed under/);
    // The same secret written twice gets a fresh IV.
    await f.call(UPDATE, { id: profile._id, input: { secret: { token: SECRETS.bearer } } }, 'admin');
    const again = JSON.parse(
      f.ws.dashboardApi.services.store.credentialProfiles.byId(profile._id)?.secretEnvelope ?? '{}',
    );
    expect(again.iv).not.toBe(envelope.iv);
  });

  it('reports a profile sealed under another key instead of decrypting it', async () => {
    const profile = await create({ name: 'Migrated', type: 'BEARER', secret: { token: SECRETS.bearer } });
    const { store, credentialProfiles } = f.ws.dashboardApi.services;
    const row = store.credentialProfiles.byId(profile._id);
    if (!row) throw new Error('missing row');
    const foreign = new SecretSealer(randomBytes(32).toString('base64url')).seal(row.id, {
      token: 'x-other',
    });
    store.credentialProfiles.replace({ ...row, secretEnvelope: foreign });
    const listed = (await f.call(LIST, {}, 'admin')).data?.credentialProfiles as Profile[];
    expect(listed.find((p) => p._id === profile._id)?.secretNeedsReentry).toBe(true);
    expect(credentialProfiles.openSecret({ ...row, secretEnvelope: foreign })).toBeNull();
    expect(logLines.join('')).toContain(`Credential profile ${row.id} was encrypted with another key`);
    // Re-entering the secret seals it under the current key again.
    const fixed = await f.call(
      UPDATE,
      { id: profile._id, input: { secret: { token: SECRETS.rotated } } },
      'admin',
    );
    expect(dataOf<Profile>(fixed, 'adminUpdateCredentialProfile').secretNeedsReentry).toBe(false);
  });

  it('audits every change by name and type, never the secret', async () => {
    const events = await f.call(
      '{ adminAuditEvents(limit: 500, actionPrefix: "credential_profile.") { action targetType metadata } }',
      {},
      'admin',
    );
    const list = events.data?.adminAuditEvents as {
      action: string;
      targetType: string;
      metadata: Record<string, unknown>;
    }[];
    expect(new Set(list.map((e) => e.action))).toEqual(
      new Set(['credential_profile.created', 'credential_profile.updated', 'credential_profile.deleted']),
    );
    expect(
      list.every((e) => e.targetType === 'credential_profile' && typeof e.metadata.name === 'string'),
    ).toBe(true);
    const updated = list.find(
      (e) => e.action === 'credential_profile.updated' && (e.metadata.fields as string[]).includes('secret'),
    );
    expect(updated).toBeDefined();
    expect(events.raw).not.toMatch(/SECRET/);
  });

  it('leaves no plaintext secret in the database file, its WAL or the logs', async () => {
    const dataDir = join(f.ws.root, 'data');
    const files = [join(dataDir, 'towpath.db'), join(dataDir, 'towpath.db-wal')];
    const bytes = Buffer.concat(
      await Promise.all(files.map((file) => readFile(file).catch(() => Buffer.alloc(0)))),
    );
    expect(bytes.length).toBeGreaterThan(0);
    for (const secret of Object.values(SECRETS)) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(logLines.join('')).not.toContain(secret);
    }
    expect(logLines.length).toBeGreaterThan(0);
  });
});
