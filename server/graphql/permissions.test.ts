// The permission matrix of dashboard spec §17 for every account and administration operation, over
// real HTTP against a real workstation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode } from '../testing/graphql.ts';
import {
  ADMIN_EMAIL,
  type Fixture,
  PASSWORD,
  SA_TOKEN_NO_SCOPE,
  signIn,
  startFixture,
} from '../testing/graphql-fixture.ts';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f?.ws.dispose());

type Caller = 'anonymous' | 'viewer' | 'editor' | 'sa';

interface AdminOperation {
  name: string;
  query: string;
  variables?: () => Record<string, unknown>;
}

// Arguments point at real records so a missing permission check would visibly succeed.
const ADMIN_ONLY: AdminOperation[] = [
  { name: 'listAllUsers', query: '{ listAllUsers { _id } }' },
  { name: 'listPendingInvites', query: '{ listPendingInvites { _id } }' },
  { name: 'authPolicy', query: '{ authPolicy { registrationMode } }' },
  { name: 'adminAuditEvents', query: '{ adminAuditEvents { _id } }' },
  {
    name: 'adminCreateUser',
    query:
      'mutation { adminCreateUser(email: "intruder@towpath.test", password: "Str0ng-password!", role: ADMIN) { _id } }',
  },
  {
    name: 'adminUpdateUser',
    query: 'mutation($id: ID!) { adminUpdateUser(_id: $id, role: ADMIN) { role } }',
    variables: () => ({ id: f.ids.viewer }),
  },
  {
    name: 'adminDeleteUser',
    query: 'mutation($id: ID!) { adminDeleteUser(_id: $id) { _id } }',
    variables: () => ({ id: f.ids.viewer }),
  },
  {
    name: 'adminCreateInvite',
    query: 'mutation { adminCreateInvite(email: "new@towpath.test", role: EDITOR) { token } }',
  },
  {
    name: 'adminRevokeInvite',
    query: 'mutation($id: ID!) { adminRevokeInvite(_id: $id) }',
    variables: () => ({ id: '0123456789abcdef01234567' }),
  },
  {
    name: 'adminIssuePasswordReset',
    query: 'mutation($id: ID!) { adminIssuePasswordReset(_id: $id) { token } }',
    variables: () => ({ id: f.ids.viewer }),
  },
  { name: 'setAuthPolicy', query: 'mutation { setAuthPolicy(registrationMode: OPEN) { registrationMode } }' },
];

const EXPECTED: Record<Caller, [string, string]> = {
  anonymous: ['UNAUTHENTICATED', 'You must be logged in to perform this action'],
  viewer: ['FORBIDDEN', 'Admin role required'],
  editor: ['FORBIDDEN', 'Admin role required'],
  sa: ['UNAUTHENTICATED', 'You must be logged in to perform this action'],
};

describe('admin-only operations', () => {
  for (const operation of ADMIN_ONLY) {
    it.each(Object.keys(EXPECTED) as Caller[])(`${operation.name} as %s is refused`, async (caller) => {
      const response = await f.call(operation.query, operation.variables?.(), caller);
      expect(response.status).toBe(200);
      const [code, message] = EXPECTED[caller];
      expect(errorCode(response)).toBe(code);
      expect(response.errors?.[0]?.message).toBe(message);
      expect(response.errors?.[0]?.path).toEqual([operation.name]);
    });
  }

  it('left nothing changed behind the refusals', async () => {
    const users = await f.call('{ listAllUsers { email role } }', undefined, 'admin');
    expect(users.data?.listAllUsers).toEqual([
      { email: ADMIN_EMAIL, role: 'ADMIN' },
      { email: 'editor@towpath.test', role: 'EDITOR' },
      { email: 'viewer@towpath.test', role: 'VIEWER' },
    ]);
    const invites = await f.call('{ listPendingInvites { email } }', undefined, 'admin');
    expect(invites.data?.listPendingInvites).toEqual([]);
    const policy = await f.call('{ authPolicy { registrationMode } }', undefined, 'admin');
    expect(policy.data?.authPolicy).toEqual({ registrationMode: 'DISABLED' });
  });
});

describe('operations for any signed-in user', () => {
  it('me answers each user with their own row; anonymous and service accounts are unauthenticated', async () => {
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const response = await f.call('{ me { _id email role active } }', undefined, role);
      expect(response.data?.me).toEqual({
        _id: f.ids[role],
        email: role === 'admin' ? ADMIN_EMAIL : `${role}@towpath.test`,
        role: role.toUpperCase(),
        active: true,
      });
    }
    for (const caller of ['anonymous', 'sa'] as const) {
      const response = await f.call('{ me { _id } }', undefined, caller);
      expect(errorCode(response)).toBe('UNAUTHENTICATED');
      expect(response.data?.me).toBeNull();
    }
  });

  it('deleteMyUserAccount needs a user', async () => {
    for (const caller of ['anonymous', 'sa'] as const) {
      expect(errorCode(await f.call('mutation { deleteMyUserAccount { _id } }', undefined, caller))).toBe(
        'UNAUTHENTICATED',
      );
    }
  });

  it('publicAuthPolicy answers everyone, service accounts included', async () => {
    for (const caller of ['anonymous', 'viewer', 'editor', 'admin', 'sa'] as const) {
      const response = await f.call(
        '{ publicAuthPolicy { registrationMode registrationDefaultRole } }',
        undefined,
        caller,
      );
      expect(response.errors).toBeUndefined();
      expect(response.data?.publicAuthPolicy).toEqual({
        registrationMode: 'DISABLED',
        registrationDefaultRole: 'VIEWER',
      });
    }
  });

  it('authUser, requestPasswordReset and resetPassword are open to every caller', async () => {
    for (const caller of ['anonymous', 'viewer', 'editor', 'admin', 'sa'] as const) {
      const auth = await f.call(
        'mutation($p: String!) { authUser(email: "editor@towpath.test", password: $p) { token } }',
        { p: PASSWORD },
        caller,
      );
      expect(auth.data?.authUser).toEqual({ token: expect.any(String) });
      const request = await f.call(
        'mutation { requestPasswordReset(email: "nobody@towpath.test") }',
        undefined,
        caller,
      );
      expect(request.data).toEqual({ requestPasswordReset: true });
      const reset = await f.call(
        'mutation { resetPassword(token: "not-a-token", password: "Str0ng-password!") }',
        undefined,
        caller,
      );
      expect(errorCode(reset)).toBe('FORBIDDEN');
      expect(reset.errors?.[0]?.message).toBe('Invalid or expired reset token');
    }
  });
});

describe('adminRuntimeMetrics', () => {
  it('admins and OPS_READ service accounts read it; others are refused', async () => {
    const query =
      '{ adminRuntimeMetrics { api { requestCount errorCount authFailureCount startedAt } gateway { uptimeSeconds } } }';
    const admin = await f.call(query, undefined, 'admin');
    expect(admin.errors).toBeUndefined();
    const api = (
      admin.data?.adminRuntimeMetrics as { api: { requestCount: number }; gateway: unknown } | undefined
    )?.api;
    expect(api?.requestCount).toBeGreaterThan(5);
    // The embedded realtime gateway serves its own counters (§15).
    expect((admin.data?.adminRuntimeMetrics as { gateway: unknown } | undefined)?.gateway).toEqual({
      uptimeSeconds: expect.any(Number),
    });

    const sa = await f.call(query, undefined, 'sa');
    expect(sa.errors).toBeUndefined();
    const noScope = await f.call(query, undefined, { token: SA_TOKEN_NO_SCOPE });
    expect(errorCode(noScope)).toBe('FORBIDDEN');
    expect(noScope.errors?.[0]?.message).toBe('Service account lacks scope OPS_READ');
    expect(errorCode(await f.call(query, undefined, 'anonymous'))).toBe('UNAUTHENTICATED');
    for (const caller of ['viewer', 'editor'] as const) {
      const response = await f.call(query, undefined, caller);
      expect(errorCode(response)).toBe('FORBIDDEN');
      expect(response.errors?.[0]?.message).toBe('Admin role required');
    }
  });

  it('counts requests, errors and rejected credentials', async () => {
    const read = async () =>
      (
        await f.call(
          '{ adminRuntimeMetrics { api { requestCount errorCount authFailureCount } } }',
          undefined,
          'admin',
        )
      ).data?.adminRuntimeMetrics as {
        api: { requestCount: number; errorCount: number; authFailureCount: number };
      };
    const before = (await read()).api;
    await f.call('{ me { _id } }', undefined, { token: 'not-a-jwt' });
    await f.call('{ me { _id } }', undefined, { token: `fsa_${'e'.repeat(24)}.${'f'.repeat(43)}` });
    await f.call('{ me { _id } }', undefined, { token: 'fsa_malformed' });
    const after = (await read()).api;
    // Three probes plus the first read itself.
    expect(after.requestCount).toBe(before.requestCount + 4);
    expect(after.errorCount).toBe(before.errorCount + 3);
    expect(after.authFailureCount).toBe(before.authFailureCount + 3);
  });
});

describe('operations every caller may try (§6, §17)', () => {
  // Here service accounts are not plugged in, as in the shipped server until their issue lands: a
  // well-formed `fsa_` bearer is a rejected credential and its caller anonymous.
  let g: Fixture;
  beforeAll(async () => {
    g = await startFixture({}, { dashboardApi: { serviceAccounts: undefined } });
  });
  afterAll(() => g?.ws.dispose());

  const CALLERS = ['anonymous', 'viewer', 'editor', 'admin', 'sa'] as const;
  const REGISTER = 'mutation($e: String!, $p: String!) { registerUser(email: $e, password: $p) { token } }';
  const failures = async () => {
    const response = await g.call('{ adminRuntimeMetrics { api { authFailureCount } } }', undefined, 'admin');
    return (response.data?.adminRuntimeMetrics as { api: { authFailureCount: number } } | undefined)?.api
      .authFailureCount;
  };
  const setMode = async (mode: string) => {
    const response = await g.call(
      `mutation { setAuthPolicy(registrationMode: ${mode}) { registrationMode } }`,
      undefined,
      'admin',
    );
    expect(response.errors).toBeUndefined();
  };

  it('an fsa_ bearer is unauthenticated for every signed-in operation and counts as a failure', async () => {
    const unknownId = '0123456789abcdef01234567';
    const operations: [string, string][] = [
      ['me', '{ me { _id } }'],
      ['deleteMyUserAccount', 'mutation { deleteMyUserAccount { _id } }'],
      ['adminRuntimeMetrics', '{ adminRuntimeMetrics { collectedAt } }'],
      ...ADMIN_ONLY.map((operation): [string, string] => [operation.name, operation.query]),
    ];
    const before = await failures();
    for (const [name, query] of operations) {
      const response = await g.call(query, { id: unknownId }, 'sa');
      expect(response.errors?.[0], name).toMatchObject({
        message: 'You must be logged in to perform this action',
        path: [name],
        extensions: { code: 'UNAUTHENTICATED' },
      });
    }
    expect(await failures()).toBe((before ?? Number.NaN) + operations.length);
  });

  it('a Bearer header without exactly one credential is rejected and counted; other schemes are not', async () => {
    const before = await failures();
    for (const authorization of ['Bearer', 'bearer   ', `Bearer ${g.tokens.admin} extra`]) {
      const response = await g.call('{ me { _id } }', undefined, 'anonymous', { authorization });
      expect(errorCode(response), authorization).toBe('UNAUTHENTICATED');
    }
    expect(await failures()).toBe((before ?? Number.NaN) + 3);
    await g.call('{ me { _id } }', undefined, 'anonymous', { authorization: `Basic ${g.tokens.admin}` });
    expect(await failures()).toBe((before ?? Number.NaN) + 3);
    // The scheme is case-insensitive and surrounding spaces do not matter.
    const lower = await g.call('{ me { _id } }', undefined, 'anonymous', {
      authorization: `  bEaReR   ${g.tokens.admin}  `,
    });
    expect(lower.data?.me).toEqual({ _id: g.ids.admin });
  });

  it('registerUser answers every caller alike, by the registration mode', async () => {
    for (const [mode, message] of [
      ['DISABLED', 'Registration is disabled'],
      ['INVITE', 'Registration is by invitation only'],
    ] as const) {
      await setMode(mode);
      for (const caller of CALLERS) {
        const response = await g.call(REGISTER, { e: `closed-${caller}@towpath.test`, p: PASSWORD }, caller);
        expect(response.errors?.[0], caller).toMatchObject({
          message,
          path: ['registerUser'],
          extensions: { code: 'FORBIDDEN' },
        });
      }
    }
    await setMode('OPEN');
    for (const caller of CALLERS) {
      const email = `open-${caller}@towpath.test`;
      const response = await g.call(REGISTER, { e: email, p: PASSWORD }, caller);
      const token = (response.data?.registerUser as { token: string } | undefined)?.token ?? '';
      const me = await g.call('{ me { email role } }', undefined, { token });
      expect(me.data?.me, caller).toEqual({ email, role: 'VIEWER' });
    }
    await setMode('DISABLED');
  });

  it('acceptInvite answers every caller alike', async () => {
    for (const caller of CALLERS) {
      const email = `invited-${caller}@towpath.test`;
      const invite = await g.call(
        'mutation($e: String!) { adminCreateInvite(email: $e, role: EDITOR) { token } }',
        { e: email },
        'admin',
      );
      const inviteToken = (invite.data?.adminCreateInvite as { token: string } | undefined)?.token;
      const accepted = await g.call(
        'mutation($t: String!, $p: String!) { acceptInvite(token: $t, password: $p) { token } }',
        { t: inviteToken, p: PASSWORD },
        caller,
      );
      const token = (accepted.data?.acceptInvite as { token: string } | undefined)?.token ?? '';
      const me = await g.call('{ me { email role } }', undefined, { token });
      expect(me.data?.me, caller).toEqual({ email, role: 'EDITOR' });
    }
  });

  it('deleteMyUserAccount lets viewers, editors and admins go, except the last active admin', async () => {
    const create = async (email: string, role: string) => {
      const response = await g.call(
        'mutation($e: String!, $p: String!, $r: UserRole!) { adminCreateUser(email: $e, password: $p, role: $r) { _id } }',
        { e: email, p: PASSWORD, r: role },
        'admin',
      );
      return (response.data?.adminCreateUser as { _id: string } | undefined)?._id;
    };
    for (const role of ['VIEWER', 'EDITOR', 'ADMIN']) {
      const email = `leaving-${role.toLowerCase()}@towpath.test`;
      const id = await create(email, role);
      const token = await signIn(g.url, email);
      const response = await g.call('mutation { deleteMyUserAccount { _id email role } }', undefined, {
        token,
      });
      expect(response.data?.deleteMyUserAccount, role).toEqual({ _id: id, email, role });
    }
    const last = await g.call('mutation { deleteMyUserAccount { _id } }', undefined, 'admin');
    expect(last.errors?.[0]).toMatchObject({
      message: 'At least one active admin must remain',
      path: ['deleteMyUserAccount'],
      extensions: { code: 'FORBIDDEN' },
    });
    expect((await g.call('{ me { _id } }', undefined, 'admin')).data?.me).toEqual({ _id: g.ids.admin });
  });
});
