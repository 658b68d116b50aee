// Service accounts and their tokens (spec §12) black-box over GraphQL against a real workstation:
// CRUD and its messages, tokens shown once and stored only as a hash and prefix, issue, rotate,
// revoke, expiry, effective scopes = token ∩ account per request, lastUsedAt, and what a service
// account may call (§17).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorCode } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

let f: Fixture;

const ACCOUNT_FIELDS = '_id name description scopes active lastUsedAt tokenCount createdAt updatedAt';
const TOKEN_FIELDS =
  '_id serviceAccountId label scopes tokenPreview expiresAt revokedAt lastUsedAt createdAt updatedAt';

interface Account {
  _id: string;
  name: string;
  description: string;
  scopes: string[];
  active: boolean;
  lastUsedAt: string | null;
  tokenCount: number;
}
interface TokenRecord {
  _id: string;
  serviceAccountId: string;
  label: string | null;
  scopes: string[];
  tokenPreview: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Issued {
  token: string;
  tokenRecord: TokenRecord;
}

const admin = (query: string, variables: Record<string, unknown> = {}) => f.call(query, variables, 'admin');

async function createAccount(input: Record<string, unknown>) {
  return dataOf<Account>(
    await admin(
      `mutation($i: ServiceAccountInput!) { adminCreateServiceAccount(input: $i) { ${ACCOUNT_FIELDS} } }`,
      { i: input },
    ),
    'adminCreateServiceAccount',
  );
}

async function issue(
  serviceAccountId: string,
  token: { label?: string | null; scopes?: string[] | null; expiresInHours?: number | null } = {},
) {
  return dataOf<Issued>(
    await admin(
      `mutation($id: ID!, $label: String, $scopes: [ServiceAccountScope!], $hours: Int) {
        adminIssueServiceAccountToken(serviceAccountId: $id, label: $label, scopes: $scopes, expiresInHours: $hours) {
          token tokenRecord { ${TOKEN_FIELDS} }
        }
      }`,
      { id: serviceAccountId, label: token.label, scopes: token.scopes, hours: token.expiresInHours },
    ),
    'adminIssueServiceAccountToken',
  );
}

const updateAccount = async (id: string, input: Record<string, unknown>) =>
  dataOf<Account>(
    await admin(
      `mutation($id: ID!, $i: UpdateServiceAccountInput!) { adminUpdateServiceAccount(_id: $id, input: $i) { ${ACCOUNT_FIELDS} } }`,
      { id, i: input },
    ),
    'adminUpdateServiceAccount',
  );

const tokensOf = async (id: string) =>
  dataOf<TokenRecord[]>(
    await admin(`query($id: ID!) { adminServiceAccountTokens(serviceAccountId: $id) { ${TOKEN_FIELDS} } }`, {
      id,
    }),
    'adminServiceAccountTokens',
  );

/** What an `fsa_` bearer gets from the OPS_READ read: ok, or the error code. */
async function opsRead(token: string) {
  const response = await f.call('{ adminRuntimeMetrics { collectedAt } }', {}, { token });
  return errorCode(response) ?? 'ok';
}

async function authFailures() {
  return dataOf<{ api: { authFailureCount: number } }>(
    await admin('{ adminRuntimeMetrics { api { authFailureCount } } }'),
    'adminRuntimeMetrics',
  ).api.authFailureCount;
}

beforeAll(async () => {
  // The real service-account check, not the fixture's stand-in.
  // Sessions outlive the hours the clock is moved forward to expire tokens.
  f = await startFixture({ JWT_TIME_EXPIRATION: '30d' }, { dashboardApi: { serviceAccounts: undefined } });
});

afterAll(() => f?.ws.dispose());

describe('accounts', () => {
  it('creates with defaults, and refuses bad names, empty scopes and duplicates ignoring case', async () => {
    const made = await createAccount({ name: '  Line scraper ', scopes: ['OPS_READ', 'OPS_READ'] });
    expect(made).toMatchObject({
      name: 'Line scraper',
      description: '',
      scopes: ['OPS_READ'],
      active: true,
      lastUsedAt: null,
      tokenCount: 0,
    });
    expect(made._id).toMatch(/^[0-9a-f]{24}$/);
    const refusal = async (input: Record<string, unknown>) => {
      const response = await admin(
        'mutation($i: ServiceAccountInput!) { adminCreateServiceAccount(input: $i) { _id } }',
        { i: input },
      );
      return [errorCode(response), response.errors?.[0]?.message];
    };
    expect(await refusal({ name: 'ab', scopes: ['OPS_READ'] })).toEqual([
      'BAD_USER_INPUT',
      'Service account name must be 3–100 characters',
    ]);
    expect(await refusal({ name: 'x'.repeat(101), scopes: ['OPS_READ'] })).toEqual([
      'BAD_USER_INPUT',
      'Service account name must be 3–100 characters',
    ]);
    expect(await refusal({ name: 'Other', scopes: [] })).toEqual([
      'BAD_USER_INPUT',
      'At least one scope is required',
    ]);
    // scopes is optional in the input type, not in the rule.
    for (const input of [{ name: 'Other' }, { name: 'Other', scopes: null }])
      expect(await refusal(input)).toEqual(['BAD_USER_INPUT', 'At least one scope is required']);
    expect(await refusal({ name: 'LINE SCRAPER', scopes: ['OPS_READ'] })).toEqual([
      'BAD_USER_INPUT',
      'A service account with this name already exists',
    ]);
    // Not a scope at all: GraphQL's own input coercion refuses it before anything runs.
    const unknownScope = await admin(
      'mutation { adminCreateServiceAccount(input: { name: "Other", scopes: [NOPE] }) { _id } }',
    );
    expect(unknownScope.errors?.length).toBeGreaterThan(0);
    expect(unknownScope.data ?? null).toBeNull();
  });

  it('is for admins only: viewers and editors FORBIDDEN, anonymous and service accounts UNAUTHENTICATED', async () => {
    const account = await createAccount({ name: 'Probe', scopes: ['OPS_READ'] });
    const { token } = await issue(account._id);
    for (const [as, code] of [
      ['viewer', 'FORBIDDEN'],
      ['editor', 'FORBIDDEN'],
      ['anonymous', 'UNAUTHENTICATED'],
      [{ token }, 'UNAUTHENTICATED'],
    ] as const) {
      const list = await f.call('{ adminServiceAccounts { _id } }', {}, as);
      expect(errorCode(list)).toBe(code);
      const create = await f.call(
        'mutation { adminCreateServiceAccount(input: { name: "Sneaky", scopes: [OPS_READ] }) { _id } }',
        {},
        as,
      );
      expect(errorCode(create)).toBe(code);
      if (code === 'FORBIDDEN') expect(list.errors?.[0]?.message).toBe('Admin role required');
    }
    // A service account calling a user operation is anonymous.
    expect(errorCode(await f.call('{ me { _id } }', {}, { token }))).toBe('UNAUTHENTICATED');
  });

  it('refuses every service-account operation to non-admins (§17), on real records, changing nothing', async () => {
    const account = await createAccount({ name: 'Matrix', scopes: ['OPS_READ'] });
    const issued = await issue(account._id);
    const ops: [string, string, Record<string, unknown>][] = [
      ['adminServiceAccounts', '{ adminServiceAccounts { _id } }', {}],
      [
        'adminServiceAccountTokens',
        'query($a: ID!) { adminServiceAccountTokens(serviceAccountId: $a) { _id } }',
        { a: account._id },
      ],
      [
        'adminCreateServiceAccount',
        'mutation { adminCreateServiceAccount(input: { name: "Intruder", scopes: [OPS_READ] }) { _id } }',
        {},
      ],
      [
        'adminUpdateServiceAccount',
        'mutation($a: ID!) { adminUpdateServiceAccount(_id: $a, input: { scopes: [DATASOURCE_MINT] }) { _id } }',
        { a: account._id },
      ],
      [
        'adminDeleteServiceAccount',
        'mutation($a: ID!) { adminDeleteServiceAccount(_id: $a) { _id } }',
        { a: account._id },
      ],
      [
        'adminIssueServiceAccountToken',
        'mutation($a: ID!) { adminIssueServiceAccountToken(serviceAccountId: $a) { token } }',
        { a: account._id },
      ],
      [
        'adminRotateServiceAccountToken',
        'mutation($t: ID!) { adminRotateServiceAccountToken(_id: $t) { token } }',
        { t: issued.tokenRecord._id },
      ],
      [
        'adminRevokeServiceAccountToken',
        'mutation($t: ID!) { adminRevokeServiceAccountToken(_id: $t) }',
        { t: issued.tokenRecord._id },
      ],
    ];
    for (const [name, query, variables] of ops)
      for (const [as, code] of [
        ['viewer', 'FORBIDDEN'],
        ['editor', 'FORBIDDEN'],
        ['anonymous', 'UNAUTHENTICATED'],
        [{ token: issued.token }, 'UNAUTHENTICATED'],
      ] as const)
        expect(errorCode(await f.call(query, variables, as)), `${name} as ${JSON.stringify(as)}`).toBe(code);
    const [record] = await tokensOf(account._id);
    expect(record).toMatchObject({ _id: issued.tokenRecord._id, revokedAt: null });
    expect((await tokensOf(account._id)).length).toBe(1);
    expect(await opsRead(issued.token)).toBe('ok');
  });

  it('updates only the given fields and deletes with its tokens', async () => {
    const account = await createAccount({ name: 'Mutable', scopes: ['OPS_READ'], description: 'first' });
    await issue(account._id);
    const updated = await updateAccount(account._id, { description: 'second' });
    expect(updated).toMatchObject({
      name: 'Mutable',
      description: 'second',
      scopes: ['OPS_READ'],
      tokenCount: 1,
    });
    const missing = await admin(
      'mutation { adminUpdateServiceAccount(_id: "ffffffffffffffffffffffff", input: {}) { _id } }',
    );
    expect([errorCode(missing), missing.errors?.[0]?.message]).toEqual([
      'NOT_FOUND',
      'Service account not found',
    ]);
    const deleted = dataOf<Account>(
      await admin(`mutation($id: ID!) { adminDeleteServiceAccount(_id: $id) { ${ACCOUNT_FIELDS} } }`, {
        id: account._id,
      }),
      'adminDeleteServiceAccount',
    );
    expect(deleted).toMatchObject({ _id: account._id, tokenCount: 0 });
    const gone = await admin('query($id: ID!) { adminServiceAccountTokens(serviceAccountId: $id) { _id } }', {
      id: account._id,
    });
    expect(errorCode(gone)).toBe('NOT_FOUND');
    expect(f.ws.dashboardApi.services.store.serviceAccounts.tokensOf(account._id)).toEqual([]);
  });
});

describe('tokens', () => {
  it('are fsa_<id>.<43-char secret>, shown once, stored as H("sa-token", secret) and an 8-char prefix', async () => {
    const account = await createAccount({ name: 'Stored', scopes: ['OPS_READ'] });
    const issued = await issue(account._id, { label: ' kiosk ' });
    const match = /^fsa_([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/.exec(issued.token);
    expect(match).not.toBeNull();
    const [, id, secret] = match as RegExpExecArray;
    expect(issued.tokenRecord).toMatchObject({
      _id: id,
      serviceAccountId: account._id,
      label: 'kiosk',
      scopes: ['OPS_READ'],
      tokenPreview: `fsa_${id}.${secret?.slice(0, 8)}...`,
      expiresAt: null,
      revokedAt: null,
    });
    const row = f.ws.dashboardApi.services.store.serviceAccounts.tokenById(id as string);
    const pepper = f.ws.dashboardApi.secrets.TOKEN_PEPPER;
    expect(row?.tokenHash).toBe(createHmac('sha256', pepper).update(`sa-token\n${secret}`).digest('hex'));
    expect(row?.tokenPrefix).toBe(secret?.slice(0, 8));
    expect(JSON.stringify(row)).not.toContain(secret);
    const listed = JSON.stringify(await tokensOf(account._id));
    expect(listed).not.toContain(secret);
    // The audit trail names the token, never its secret.
    const audit = JSON.stringify(
      dataOf(
        await admin('{ adminAuditEvents(actionPrefix: "service_account") { action metadata } }'),
        'adminAuditEvents',
      ),
    );
    expect(audit).toContain('service_account_token.issued');
    expect(audit).not.toContain(secret);
  });

  it('takes scopes as a non-empty subset of the account, and clamps expiresInHours to 1–8760', async () => {
    const account = await createAccount({ name: 'Subset', scopes: ['OPS_READ', 'DATASOURCE_MINT'] });
    const bad = await admin(
      'mutation($id: ID!) { adminIssueServiceAccountToken(serviceAccountId: $id, scopes: [DATASOURCE_DIAGNOSTICS_READ]) { token } }',
      { id: account._id },
    );
    expect([errorCode(bad), bad.errors?.[0]?.message]).toEqual([
      'BAD_USER_INPUT',
      'Token scopes must be a subset of the service account scopes',
    ]);
    const empty = await admin(
      'mutation($id: ID!) { adminIssueServiceAccountToken(serviceAccountId: $id, scopes: []) { token } }',
      { id: account._id },
    );
    expect(errorCode(empty)).toBe('BAD_USER_INPUT');
    const unknown = await admin(
      'mutation { adminIssueServiceAccountToken(serviceAccountId: "ffffffffffffffffffffffff") { token } }',
    );
    expect([errorCode(unknown), unknown.errors?.[0]?.message]).toEqual([
      'NOT_FOUND',
      'Service account not found',
    ]);
    const now = f.clock();
    const short = await issue(account._id, { scopes: ['DATASOURCE_MINT'], expiresInHours: 0 });
    expect(short.tokenRecord.scopes).toEqual(['DATASOURCE_MINT']);
    expect(Date.parse(short.tokenRecord.expiresAt ?? '')).toBe(now + 3_600_000);
    const long = await issue(account._id, { expiresInHours: 1_000_000 });
    expect(Date.parse(long.tokenRecord.expiresAt ?? '')).toBe(now + 8760 * 3_600_000);
    expect(long.tokenRecord.scopes.sort()).toEqual(['DATASOURCE_MINT', 'OPS_READ']);
  });

  it('authenticate per request with token ∩ account scopes and set lastUsedAt', async () => {
    const account = await createAccount({
      name: 'Scoped',
      scopes: ['OPS_READ', 'DATASOURCE_DIAGNOSTICS_READ'],
    });
    const { token, tokenRecord } = await issue(account._id, { scopes: ['OPS_READ'] });
    expect(await opsRead(token)).toBe('ok');
    const diagnostics = await f.call('{ adminDatasourceDiagnostics { totalDashboards } }', {}, { token });
    expect(diagnostics.errors?.[0]?.message).toBe('Service account lacks scope DATASOURCE_DIAGNOSTICS_READ');
    const [record] = (await tokensOf(account._id)).filter((t) => t._id === tokenRecord._id);
    expect(record?.lastUsedAt).toBe(new Date(f.clock()).toISOString());
    expect(
      dataOf<Account[]>(
        await admin('{ adminServiceAccounts { _id lastUsedAt } }'),
        'adminServiceAccounts',
      ).find((a) => a._id === account._id)?.lastUsedAt,
    ).toBe(new Date(f.clock()).toISOString());

    // The account loses OPS_READ: the token, which still lists it, loses it too.
    await updateAccount(account._id, { scopes: ['DATASOURCE_DIAGNOSTICS_READ'] });
    const lost = await f.call('{ adminRuntimeMetrics { collectedAt } }', {}, { token });
    expect(lost.errors?.[0]?.message).toBe('Service account lacks scope OPS_READ');
    await updateAccount(account._id, { scopes: ['OPS_READ', 'DATASOURCE_DIAGNOSTICS_READ'] });
    expect(await opsRead(token)).toBe('ok');

    const both = await issue(account._id);
    expect(
      errorCode(
        await f.call('{ adminDatasourceDiagnostics { totalDashboards } }', {}, { token: both.token }),
      ),
    ).toBe(undefined);

    // Deactivated: every token of it is rejected, and counted as an auth failure.
    await updateAccount(account._id, { active: false });
    const before = await authFailures();
    expect(await opsRead(token)).toBe('UNAUTHENTICATED');
    expect(await authFailures()).toBe(before + 1);
    await updateAccount(account._id, { active: true });
    expect(await opsRead(token)).toBe('ok');
  });

  it('are rejected once expired, with a wrong secret, or malformed', async () => {
    const account = await createAccount({ name: 'Expiring', scopes: ['OPS_READ'] });
    const { token } = await issue(account._id, { expiresInHours: 1 });
    expect(await opsRead(token)).toBe('ok');
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(await opsRead(wrong)).toBe('UNAUTHENTICATED');
    expect(await opsRead(`${token}x`)).toBe('UNAUTHENTICATED');
    f.clock.advance(3_600_000);
    expect(await opsRead(token)).toBe('UNAUTHENTICATED');
    const listed = dataOf<Account[]>(
      await admin('{ adminServiceAccounts { _id tokenCount } }'),
      'adminServiceAccounts',
    );
    expect(listed.find((a) => a._id === account._id)?.tokenCount).toBe(0);
  });

  it('revoke answers true once, then false; unknown ids are NOT_FOUND', async () => {
    const account = await createAccount({ name: 'Revoking', scopes: ['OPS_READ'] });
    const { token, tokenRecord } = await issue(account._id);
    const revoke = (id: string) =>
      admin('mutation($id: ID!) { adminRevokeServiceAccountToken(_id: $id) }', { id });
    expect(tokenRecord.updatedAt).toBe(tokenRecord.createdAt);
    f.clock.advance(1000);
    expect(dataOf(await revoke(tokenRecord._id), 'adminRevokeServiceAccountToken')).toBe(true);
    expect((await revoke(tokenRecord._id)).data?.adminRevokeServiceAccountToken).toBe(false);
    // A record changes only when it is revoked.
    const revoked = (await tokensOf(account._id)).find((t) => t._id === tokenRecord._id);
    expect(revoked?.revokedAt).toBe(new Date(f.clock()).toISOString());
    expect(revoked?.updatedAt).toBe(revoked?.revokedAt);
    expect(await opsRead(token)).toBe('UNAUTHENTICATED');
    const unknown = await revoke('ffffffffffffffffffffffff');
    expect([errorCode(unknown), unknown.errors?.[0]?.message]).toEqual([
      'NOT_FOUND',
      'Service account token not found',
    ]);
  });

  it('rotate replaces the token with the same label, scopes and lifetime, even when expired', async () => {
    const account = await createAccount({ name: 'Rotating', scopes: ['OPS_READ', 'DATASOURCE_MINT'] });
    const old = await issue(account._id, { label: 'panel', scopes: ['OPS_READ'], expiresInHours: 2 });
    f.clock.advance(3 * 3_600_000);
    const rotate = (id: string, hours?: number) =>
      admin(
        `mutation($id: ID!, $h: Int) { adminRotateServiceAccountToken(_id: $id, expiresInHours: $h) { token tokenRecord { ${TOKEN_FIELDS} } } }`,
        { id, h: hours },
      );
    const next = dataOf<Issued>(await rotate(old.tokenRecord._id), 'adminRotateServiceAccountToken');
    expect(next.tokenRecord).toMatchObject({ label: 'panel', scopes: ['OPS_READ'], revokedAt: null });
    expect(next.tokenRecord._id).not.toBe(old.tokenRecord._id);
    expect(Date.parse(next.tokenRecord.expiresAt ?? '')).toBe(f.clock() + 2 * 3_600_000);
    expect(await opsRead(next.token)).toBe('ok');
    const again = await rotate(old.tokenRecord._id);
    expect([errorCode(again), again.errors?.[0]?.message]).toEqual(['BAD_USER_INPUT', 'Token is revoked']);
    f.clock.advance(1000);
    const third = dataOf<Issued>(await rotate(next.tokenRecord._id, 5), 'adminRotateServiceAccountToken');
    expect(Date.parse(third.tokenRecord.expiresAt ?? '')).toBe(f.clock() + 5 * 3_600_000);
    expect(await opsRead(next.token)).toBe('UNAUTHENTICATED');
    const unknown = await rotate('ffffffffffffffffffffffff');
    expect(errorCode(unknown)).toBe('NOT_FOUND');
    const audit = dataOf<{ action: string; metadata: Record<string, unknown> }[]>(
      await admin('{ adminAuditEvents(actionPrefix: "service_account_token.rotated") { action metadata } }'),
      'adminAuditEvents',
    );
    expect(audit.some((e) => e.metadata.replacedTokenId === old.tokenRecord._id)).toBe(true);
    // Newest first.
    const listed = await tokensOf(account._id);
    expect(listed.map((t) => t._id)).toEqual([
      third.tokenRecord._id,
      next.tokenRecord._id,
      old.tokenRecord._id,
    ]);
  });
});
