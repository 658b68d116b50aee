// Users, sessions, invites, password resets, policy and audit over real HTTP (spec §5–§7, §14).

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { errorCode, gql } from '../testing/graphql.ts';
import { ADMIN_EMAIL, type Fixture, PASSWORD, signIn, startFixture } from '../testing/graphql-fixture.ts';
import { startTestWorkstation } from '../testing/workstation.ts';

let f: Fixture;
afterEach(() => f?.ws.dispose());

const ME = '{ me { _id email role active } }';
const REGISTER = 'mutation($e: String!, $p: String!) { registerUser(email: $e, password: $p) { token } }';
const REGISTER_WITH_CODE =
  'mutation($e: String!, $p: String!, $c: String) { registerUser(email: $e, password: $p, setupCode: $c) { token } }';

async function audit(prefix = '') {
  const response = await f.call(
    'query($p: String) { adminAuditEvents(actionPrefix: $p, limit: 500) { _id actorUserId action targetType targetId metadata } }',
    { p: prefix },
    'admin',
  );
  return response.data?.adminAuditEvents as {
    actorUserId: string | null;
    action: string;
    targetType: string;
    targetId: string | null;
    metadata: Record<string, unknown>;
  }[];
}

async function setPolicy(args: string) {
  const response = await f.call(
    `mutation { setAuthPolicy(${args}) { registrationMode } }`,
    undefined,
    'admin',
  );
  expect(response.errors).toBeUndefined();
}

describe('registration', () => {
  it('follows the registration mode, default role, validation, duplicates and the user limit', async () => {
    f = await startFixture({ USER_LIMIT: '4' });
    const register = (email: string, password = PASSWORD) => f.call(REGISTER, { e: email, p: password });

    let response = await register('new@towpath.test');
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'FORBIDDEN',
      'Registration is disabled',
    ]);
    await setPolicy('registrationMode: INVITE');
    response = await register('new@towpath.test');
    expect(response.errors?.[0]?.message).toBe('Registration is by invitation only');

    await setPolicy('registrationMode: OPEN, registrationDefaultRole: EDITOR');
    response = await register('not-an-email');
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'BAD_USER_INPUT',
      'Invalid email address',
    ]);
    response = await register('new@towpath.test', 'short');
    expect(response.errors?.[0]?.message).toMatch(/^Password must be at least 12 characters long/);
    response = await register('  Editor@Towpath.TEST ');
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'BAD_USER_INPUT',
      'Data provided is not valid',
    ]);

    response = await register('  New@Towpath.test ');
    const token = (response.data?.registerUser as { token: string } | undefined)?.token ?? '';
    const me = await f.call(ME, undefined, { token });
    expect(me.data?.me).toMatchObject({ email: 'new@towpath.test', role: 'EDITOR', active: true });

    // Four users now: the limit refuses the fifth, before the duplicate check would.
    response = await register('fifth@towpath.test');
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual(['FORBIDDEN', 'User limit reached']);
    const events = await audit('user.self_registered');
    expect(events).toEqual([
      expect.objectContaining({
        targetType: 'user',
        metadata: { role: 'editor' },
        action: 'user.self_registered',
      }),
    ]);
  });

  it('lets a caller on this machine with the setup code create the admin while nobody has an account', async () => {
    const ws = await startTestWorkstation();
    try {
      const url = ws.urls.lan;
      const codeFile = join(ws.dataDir, 'setup-code');
      const code = (await readFile(codeFile, 'utf8')).trim();
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
      expect((await stat(codeFile)).mode & 0o777).toBe(0o600);
      expect(ws.dashboardApi.services.setupCode.current).toBe(code);

      const policy = await gql(url, '{ publicAuthPolicy { registrationMode registrationDefaultRole } }');
      expect(policy.data?.publicAuthPolicy).toEqual({
        registrationMode: 'OPEN',
        registrationDefaultRole: 'ADMIN',
      });
      // A bare registerUser from loopback (what a web page open on the workstation can send) and a
      // wrong code create nothing.
      for (const setupCode of [undefined, 'AAAA-BBBB-CCCC-DDDD-EEEE', '', code.slice(0, -1)]) {
        const refused = await gql(url, REGISTER_WITH_CODE, {
          variables: { e: 'page@evil.test', p: PASSWORD, c: setupCode },
        });
        expect([setupCode, errorCode(refused), refused.errors?.[0]?.message]).toEqual([
          setupCode,
          'FORBIDDEN',
          'Setup code required to create the first admin',
        ]);
      }
      expect(ws.dashboardApi.services.store.users.count()).toBe(0);

      // Typed the way people type: lowercase, without dashes.
      const first = await gql<{ registerUser: { token: string } }>(url, REGISTER_WITH_CODE, {
        variables: { e: 'owner@towpath.test', p: PASSWORD, c: code.toLowerCase().replaceAll('-', '') },
      });
      const token = first.data?.registerUser.token ?? '';
      expect((await gql(url, ME, { token })).data?.me).toMatchObject({ role: 'ADMIN' });
      await expect(stat(codeFile)).rejects.toThrow();
      expect(ws.dashboardApi.services.setupCode.current).toBeNull();
      const second = await gql(url, REGISTER_WITH_CODE, {
        variables: { e: 'second@towpath.test', p: PASSWORD, c: code },
      });
      expect(second.errors?.[0]?.message).toBe('Registration is disabled');
      const after = await gql(url, '{ publicAuthPolicy { registrationMode } }');
      expect(after.data?.publicAuthPolicy).toEqual({ registrationMode: 'DISABLED' });
    } finally {
      await ws.dispose();
    }
  });

  it('keeps the setup code across restarts until the first admin exists, and makes none with CREATE_ADMIN', async () => {
    const first = await startTestWorkstation();
    const code = first.dashboardApi.services.setupCode.current;
    await first.stop();
    const again = await startTestWorkstation({}, { root: first.root });
    try {
      expect(again.dashboardApi.services.setupCode.current).toBe(code);
    } finally {
      await again.stop();
    }
    const bootstrapped = await startTestWorkstation(
      { CREATE_ADMIN: 'true', ADMIN_EMAIL, ADMIN_PASSWORD: PASSWORD },
      { root: first.root },
    );
    try {
      expect(bootstrapped.dashboardApi.services.setupCode.current).toBeNull();
      await expect(stat(join(bootstrapped.dataDir, 'setup-code'))).rejects.toThrow();
    } finally {
      await bootstrapped.dispose();
      await first.dispose();
    }
  });

  it('creates exactly one first-run admin under concurrent registrations', async () => {
    const ws = await startTestWorkstation();
    try {
      const url = ws.urls.lan;
      const c = ws.dashboardApi.services.setupCode.current;
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          gql(url, REGISTER_WITH_CODE, { variables: { e: `u${i}@towpath.test`, p: PASSWORD, c } }),
        ),
      );
      expect(attempts.filter((a) => a.data?.registerUser).length).toBe(1);
      expect(attempts.filter((a) => a.errors?.[0]?.message === 'Registration is disabled').length).toBe(7);
    } finally {
      await ws.dispose();
    }
  });
});

describe('sign-in and sessions', () => {
  it('authUser sets lastLogin, refuses wrong passwords and deactivated accounts', async () => {
    f = await startFixture();
    f.clock.advance(5000);
    await signIn(f.url, 'viewer@towpath.test');
    const before = await f.call('{ listAllUsers { email lastLogin registrationDate } }', undefined, 'admin');
    const users = (before.data?.listAllUsers ?? []) as {
      email: string;
      lastLogin: string;
      registrationDate: string;
    }[];
    const viewer = users.find((u) => u.email === 'viewer@towpath.test');
    expect(viewer?.registrationDate).toBe('2030-01-01T00:00:02.000Z');
    expect(viewer?.lastLogin).toBe('2030-01-01T00:00:07.000Z');

    let response = await f.call(
      'mutation { authUser(email: "viewer@towpath.test", password: "Wr0ng-password!") { token } }',
    );
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'UNAUTHENTICATED',
      'Invalid credentials',
    ]);
    response = await f.call(
      'mutation { authUser(email: "ghost@towpath.test", password: "Wr0ng-password!") { token } }',
    );
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'UNAUTHENTICATED',
      'Invalid credentials',
    ]);
    response = await f.call('mutation { authUser(email: "bad", password: "x") { token } }');
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'BAD_USER_INPUT',
      'Invalid email address',
    ]);

    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { active } }',
      { id: f.ids.viewer },
      'admin',
    );
    response = await f.call(
      'mutation($p: String!) { authUser(email: "viewer@towpath.test", password: $p) { token } }',
      {
        p: PASSWORD,
      },
    );
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'FORBIDDEN',
      'Account is deactivated',
    ]);
  });

  it.each([
    ['deactivation', 'active: false'],
    ['a role change', 'role: EDITOR'],
  ])('a session stops working at once after %s', async (_, change) => {
    f = await startFixture();
    expect((await f.call(ME, undefined, 'viewer')).data?.me).toMatchObject({ role: 'VIEWER' });
    const update = await f.call(
      `mutation($id: ID!) { adminUpdateUser(_id: $id, ${change}) { _id } }`,
      { id: f.ids.viewer },
      'admin',
    );
    expect(update.errors).toBeUndefined();
    const after = await f.call(ME, undefined, 'viewer');
    expect(errorCode(after)).toBe('UNAUTHENTICATED');
    const events = await audit('user.admin_updated');
    expect(events[0]?.metadata).toEqual({
      update: change.startsWith('active') ? { active: false } : { role: 'editor' },
      sessionsRevoked: true,
    });
  });

  it('an unchanged update keeps sessions valid', async () => {
    f = await startFixture();
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, role: VIEWER) { _id } }',
      { id: f.ids.viewer },
      'admin',
    );
    expect((await f.call(ME, undefined, 'viewer')).errors).toBeUndefined();
    expect((await audit('user.admin_updated'))[0]?.metadata).toEqual({
      update: { role: 'viewer' },
      sessionsRevoked: false,
    });
  });

  it('a session stops working after a password reset, and the new password signs in', async () => {
    f = await startFixture();
    const issued = await f.call(
      'mutation($id: ID!) { adminIssuePasswordReset(_id: $id) { userId token expiresAt } }',
      { id: f.ids.viewer },
      'admin',
    );
    const reset = issued.data?.adminIssuePasswordReset as {
      userId: string;
      token: string;
      expiresAt: string;
    };
    expect(reset.userId).toBe(f.ids.viewer);
    expect(reset.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reset.expiresAt).toBe(new Date(f.clock() + 24 * 3_600_000).toISOString());

    const done = await f.call(
      'mutation($t: String!) { resetPassword(token: $t, password: "N3w-password-ok") }',
      {
        t: reset.token,
      },
    );
    expect(done.data).toEqual({ resetPassword: true });
    expect(errorCode(await f.call(ME, undefined, 'viewer'))).toBe('UNAUTHENTICATED');
    await expect(signIn(f.url, 'viewer@towpath.test', 'N3w-password-ok')).resolves.toEqual(
      expect.any(String),
    );
    const again = await f.call(
      'mutation($t: String!) { resetPassword(token: $t, password: "N3w-password-ok") }',
      {
        t: reset.token,
      },
    );
    expect([errorCode(again), again.errors?.[0]?.message]).toEqual([
      'FORBIDDEN',
      'Invalid or expired reset token',
    ]);
  });

  it('sessions expire after JWT_TIME_EXPIRATION with no tolerance, and forged tokens are anonymous', async () => {
    f = await startFixture({ JWT_TIME_EXPIRATION: '10m' });
    f.clock.advance(600_000 - 1000);
    expect((await f.call(ME, undefined, 'viewer')).errors).toBeUndefined();
    f.clock.advance(1000);
    expect(errorCode(await f.call(ME, undefined, 'viewer'))).toBe('UNAUTHENTICATED');

    const secret = new TextEncoder().encode(f.ws.dashboardApi.secrets.JWT_SECRET);
    const iat = Math.floor(f.clock() / 1000);
    // The admin's session as the server would sign it, but for the given version and audience.
    const forge = (sv: number, audience = 'towpath-api') =>
      new SignJWT({ sv })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('towpath-api')
        .setAudience(audience)
        .setSubject(f.ids.admin)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 60)
        .sign(secret);
    const good = await forge(0);
    expect((await f.call(ME, undefined, { token: good })).data?.me).toMatchObject({ email: ADMIN_EMAIL });
    const wrongAudience = await forge(0, 'towpath-gateway');
    const [header, payload] = good.split('.');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    const staleVersion = await forge(1);
    for (const token of [wrongAudience, unsigned, `${header}.${payload}.AAAA`, staleVersion]) {
      expect(errorCode(await f.call(ME, undefined, { token }))).toBe('UNAUTHENTICATED');
    }
    // Other schemes and no header are anonymous without counting as failures.
    expect(errorCode(await f.call(ME, undefined, 'anonymous', { authorization: `Basic ${good}` }))).toBe(
      'UNAUTHENTICATED',
    );
  });
});

describe('account management', () => {
  it('adminCreateUser validates, refuses duplicates, honours active and audits', async () => {
    f = await startFixture();
    const create = (email: string, extra = '') =>
      f.call(
        `mutation($e: String!, $p: String!) { adminCreateUser(email: $e, password: $p, role: EDITOR${extra}) { email role active } }`,
        { e: email, p: PASSWORD },
        'admin',
      );
    expect((await create('editor@towpath.test')).errors?.[0]?.message).toBe(
      'A user with this email already exists',
    );
    expect(errorCode(await create('x@y'))).toBe('BAD_USER_INPUT');
    const created = await create('Off@Towpath.test', ', active: false');
    expect(created.data?.adminCreateUser).toEqual({
      email: 'off@towpath.test',
      role: 'EDITOR',
      active: false,
    });
    expect((await audit('user.admin_created'))[0]).toMatchObject({
      actorUserId: f.ids.admin,
      metadata: { role: 'editor', active: false },
    });
    const bootstrap = (await audit('user.admin_created')).at(-1);
    expect(bootstrap).toMatchObject({
      actorUserId: null,
      metadata: { role: 'admin', active: true, bootstrap: true },
    });
  });

  it('adminUpdateUser protects the caller and the last active admin', async () => {
    f = await startFixture();
    const update = (id: string, change: string) =>
      f.call(`mutation($id: ID!) { adminUpdateUser(_id: $id, ${change}) { role active } }`, { id }, 'admin');
    expect((await update(f.ids.admin, 'role: EDITOR')).errors?.[0]?.message).toBe(
      'You cannot change your own role',
    );
    expect((await update(f.ids.admin, 'active: false')).errors?.[0]?.message).toBe(
      'You cannot deactivate your own account',
    );
    expect((await update('0123456789abcdef01234567', 'role: EDITOR')).errors?.[0]).toMatchObject({
      message: 'User not found',
      extensions: { code: 'NOT_FOUND' },
    });
    expect(errorCode(await update('not-an-id', 'role: EDITOR'))).toBe('NOT_FOUND');
    // Promote the editor, then it may not demote the original admin... but the original admin may
    // demote the editor only while another active admin remains.
    expect((await update(f.ids.editor, 'role: ADMIN')).data?.adminUpdateUser).toEqual({
      role: 'ADMIN',
      active: true,
    });
    const editorAdmin = await signIn(f.url, 'editor@towpath.test');
    const demoteOriginal = await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { active } }',
      { id: f.ids.admin },
      { token: editorAdmin },
    );
    expect(demoteOriginal.data?.adminUpdateUser).toEqual({ active: false });
    const lastAdmin = await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, role: VIEWER) { role } }',
      { id: f.ids.editor },
      { token: editorAdmin },
    );
    expect(lastAdmin.errors?.[0]?.message).toBe('You cannot change your own role');
  });

  it('refuses to leave no active admin', async () => {
    f = await startFixture();
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, role: ADMIN) { role } }',
      { id: f.ids.editor },
      'admin',
    );
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { role } }',
      { id: f.ids.editor },
      'admin',
    );
    // The editor-turned-admin is inactive, so the original admin is the only active one.
    const second = await signIn(f.url, ADMIN_EMAIL);
    const self = await f.call('mutation { deleteMyUserAccount { _id } }', undefined, { token: second });
    expect([errorCode(self), self.errors?.[0]?.message]).toEqual([
      'FORBIDDEN',
      'At least one active admin must remain',
    ]);
  });

  it('adminDeleteUser needs an inactive user other than the caller and returns it', async () => {
    f = await startFixture();
    const remove = (id: string) =>
      f.call('mutation($id: ID!) { adminDeleteUser(_id: $id) { _id email } }', { id }, 'admin');
    expect((await remove(f.ids.admin)).errors?.[0]?.message).toBe(
      'You cannot delete your own account here; use deleteMyUserAccount',
    );
    expect((await remove(f.ids.viewer)).errors?.[0]?.message).toBe('Deactivate the user before deleting');
    expect((await remove('0123456789abcdef01234567')).errors?.[0]?.message).toBe('User not found');
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }',
      { id: f.ids.viewer },
      'admin',
    );
    expect((await remove(f.ids.viewer)).data?.adminDeleteUser).toEqual({
      _id: f.ids.viewer,
      email: 'viewer@towpath.test',
    });
    const users = await f.call('{ listAllUsers { email } }', undefined, 'admin');
    expect(users.data?.listAllUsers).toEqual([{ email: ADMIN_EMAIL }, { email: 'editor@towpath.test' }]);
    expect((await audit('user.admin_deleted'))[0]).toMatchObject({
      targetId: f.ids.viewer,
      metadata: { email: 'viewer@towpath.test', reassignedDashboards: 0 },
    });
  });

  it('deleteMyUserAccount removes the caller, whose token then stops working', async () => {
    f = await startFixture();
    const deleted = await f.call('mutation { deleteMyUserAccount { _id email role } }', undefined, 'viewer');
    expect(deleted.data?.deleteMyUserAccount).toEqual({
      _id: f.ids.viewer,
      email: 'viewer@towpath.test',
      role: 'VIEWER',
    });
    expect(errorCode(await f.call(ME, undefined, 'viewer'))).toBe('UNAUTHENTICATED');
    expect((await audit('user.self_deleted'))[0]).toMatchObject({
      actorUserId: f.ids.viewer,
      metadata: { reassignedDashboards: 0 },
    });
  });

  it('offboarding hands shared dashboards to the oldest other admin as private, with a revocation event', async () => {
    f = await startFixture();
    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'));
    try {
      const at = '2030-01-01T00:00:00.000Z';
      sqlite
        .prepare(
          `INSERT INTO dashboards (id, title, version, visibility, share_token, share_token_version, owner_id, created_at, updated_at)
           VALUES ('d00000000000000000000001', 'Line 1', '1', 'link', 'tok', 3, ?, ?, ?)`,
        )
        .run(f.ids.editor, at, at);
      sqlite
        .prepare(
          `INSERT INTO dashboard_acl (dashboard_id, user_id, access_level, granted_at) VALUES (?, ?, 'editor', ?)`,
        )
        .run('d00000000000000000000001', f.ids.admin, at);
      const deleted = await f.call('mutation { deleteMyUserAccount { _id } }', undefined, 'editor');
      expect(deleted.errors).toBeUndefined();
      expect(
        sqlite
          .prepare(
            `SELECT owner_id, visibility, share_token, share_token_version FROM dashboards WHERE id = 'd00000000000000000000001'`,
          )
          .all(),
      ).toEqual([
        { owner_id: f.ids.admin, visibility: 'private', share_token: null, share_token_version: 4 },
      ]);
      expect(sqlite.prepare(`SELECT * FROM dashboard_acl`).all()).toEqual([]);
      expect(
        sqlite
          .prepare(`SELECT dashboard_id, share_token_version, reason FROM share_token_revocation_events`)
          .all(),
      ).toEqual([
        { dashboard_id: 'd00000000000000000000001', share_token_version: 4, reason: 'owner_offboarded' },
      ]);
      expect((await audit('dashboard.ownership'))[0]?.metadata).toEqual({
        fromUserId: f.ids.editor,
        toUserId: f.ids.admin,
        previousVisibility: 'link',
        forcedPrivate: true,
      });
    } finally {
      sqlite.close();
    }
  });
});

describe('invites', () => {
  it('runs the invite lifecycle with hashed tokens', async () => {
    f = await startFixture({ USER_LIMIT: '5' });
    const invite = (email: string, role = 'EDITOR', hours?: number) =>
      f.call(
        `mutation($e: String!, $h: Int) { adminCreateInvite(email: $e, role: ${role}, expiresInHours: $h) { token invite { _id email role expiresAt } } }`,
        { e: email, h: hours },
        'admin',
      );
    expect((await invite('a@towpath.test', 'ADMIN')).errors?.[0]?.message).toBe(
      'Invites can grant only VIEWER or EDITOR',
    );
    expect((await invite('viewer@towpath.test')).errors?.[0]?.message).toBe(
      'A user with this email already exists',
    );
    const first = (await invite('New@Towpath.test', 'EDITOR', 1000)).data?.adminCreateInvite as {
      token: string;
      invite: { _id: string; expiresAt: string };
    };
    expect(first.invite.expiresAt).toBe(new Date(f.clock() + 336 * 3_600_000).toISOString());
    f.clock.advance(1000);
    const second = (await invite('new@towpath.test', 'VIEWER')).data?.adminCreateInvite as {
      token: string;
      invite: { _id: string; expiresAt: string };
    };
    expect(second.invite.expiresAt).toBe(new Date(f.clock() + 72 * 3_600_000).toISOString());
    const pending = await f.call('{ listPendingInvites { _id email role } }', undefined, 'admin');
    expect(pending.data?.listPendingInvites).toEqual([
      { _id: second.invite._id, email: 'new@towpath.test', role: 'VIEWER' },
    ]);
    expect((await audit('invite.created'))[0]?.metadata).toMatchObject({
      revokedPrevious: 1,
      role: 'viewer',
    });

    const accept = (token: string, password = PASSWORD) =>
      f.call('mutation($t: String!, $p: String!) { acceptInvite(token: $t, password: $p) { token } }', {
        t: token,
        p: password,
      });
    expect((await accept(first.token)).errors?.[0]?.message).toBe('Invalid or expired invite');
    expect((await accept(second.token, 'weak')).errors?.[0]?.message).toMatch(/^Password must/);
    const accepted = await accept(second.token);
    const token = (accepted.data?.acceptInvite as { token: string } | undefined)?.token ?? '';
    expect((await f.call(ME, undefined, { token })).data?.me).toMatchObject({
      email: 'new@towpath.test',
      role: 'VIEWER',
    });
    expect((await accept(second.token)).errors?.[0]?.message).toBe('Invalid or expired invite');
    expect(
      await f.call('mutation($id: ID!) { adminRevokeInvite(_id: $id) }', { id: second.invite._id }, 'admin'),
    ).toMatchObject({
      data: { adminRevokeInvite: false },
    });
    expect((await audit('invite.accepted'))[0]).toMatchObject({
      metadata: { email: 'new@towpath.test', role: 'viewer' },
    });

    // Revocation, expiry, NOT_FOUND and the user limit (5 users now: admin, editor, viewer, new + this one).
    const third = (await invite('third@towpath.test')).data?.adminCreateInvite as {
      token: string;
      invite: { _id: string };
    };
    expect(
      (await f.call('mutation($id: ID!) { adminRevokeInvite(_id: $id) }', { id: third.invite._id }, 'admin'))
        .data,
    ).toEqual({
      adminRevokeInvite: true,
    });
    expect((await accept(third.token)).errors?.[0]?.message).toBe('Invalid or expired invite');
    expect(
      (await f.call('mutation { adminRevokeInvite(_id: "0123456789abcdef01234567") }', undefined, 'admin'))
        .errors?.[0],
    ).toMatchObject({
      message: 'Invite not found',
      extensions: { code: 'NOT_FOUND' },
    });
    const fourth = (await invite('fourth@towpath.test', 'EDITOR', 0)).data?.adminCreateInvite as {
      token: string;
    };
    f.clock.advance(3_600_000);
    expect((await accept(fourth.token)).errors?.[0]?.message).toBe('Invalid or expired invite');
    const fifth = (await invite('fifth@towpath.test')).data?.adminCreateInvite as { token: string };
    await accept(fifth.token);
    expect((await invite('sixth@towpath.test')).errors?.[0]?.message).toBe('User limit reached');

    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'), { readonly: true });
    try {
      const stored = sqlite.prepare('SELECT token_hash FROM invites').all() as { token_hash: string }[];
      expect(stored.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
      expect(stored.some((row) => row.token_hash.includes(second.token))).toBe(false);
    } finally {
      sqlite.close();
    }
  });
});

describe('password reset requests', () => {
  it('always answer true, never reveal the token, and audit only known emails', async () => {
    f = await startFixture();
    for (const email of ['viewer@towpath.test', 'nobody@towpath.test', 'not an email']) {
      const response = await f.call('mutation($e: String!) { requestPasswordReset(email: $e) }', {
        e: email,
      });
      expect(response.raw).toBe('{"data":{"requestPasswordReset":true}}');
    }
    f.ws.dashboardApi.services.resetRequests.flush();
    const events = await audit('password_reset.requested');
    expect(events).toEqual([
      expect.objectContaining({
        actorUserId: null,
        action: 'password_reset.requested',
        targetType: 'user',
        targetId: f.ids.viewer,
        metadata: {},
      }),
    ]);
    // The stored self-requested token expires after 2 hours and is superseded by an admin-issued one.
    const issued = await f.call(
      'mutation($id: ID!) { adminIssuePasswordReset(_id: $id, expiresInHours: 1) { token } }',
      { id: f.ids.viewer },
      'admin',
    );
    const token = (issued.data?.adminIssuePasswordReset as { token: string } | undefined)?.token;
    f.clock.advance(3_600_000);
    const expired = await f.call(
      'mutation($t: String!) { resetPassword(token: $t, password: "N3w-password-ok") }',
      { t: token },
    );
    expect(expired.errors?.[0]?.message).toBe('Invalid or expired reset token');
  });
});

describe('auth policy', () => {
  it('setAuthPolicy changes only given fields, refuses ADMIN defaults and audits the changes', async () => {
    f = await startFixture();
    const set = await f.call(
      'mutation { setAuthPolicy(editorCanPublish: true, executionMode: TRUSTED) { registrationMode registrationDefaultRole editorCanPublish dashboardDefaultVisibility dashboardPublicListingEnabled executionMode policyEditLock } }',
      undefined,
      'admin',
    );
    expect(set.data?.setAuthPolicy).toEqual({
      registrationMode: 'DISABLED',
      registrationDefaultRole: 'VIEWER',
      editorCanPublish: true,
      dashboardDefaultVisibility: 'PRIVATE',
      dashboardPublicListingEnabled: false,
      executionMode: 'TRUSTED',
      policyEditLock: false,
    });
    expect((await audit('auth.policy'))[0]?.metadata).toEqual({
      changes: {
        editorCanPublish: { from: false, to: true },
        executionMode: { from: 'safe', to: 'trusted' },
      },
    });
    // Setting the same values again writes nothing.
    await f.call(
      'mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }',
      undefined,
      'admin',
    );
    expect((await audit('auth.policy')).length).toBe(1);
    const admin = await f.call(
      'mutation { setAuthPolicy(registrationDefaultRole: ADMIN) { editorCanPublish } }',
      undefined,
      'admin',
    );
    expect([errorCode(admin), admin.errors?.[0]?.message]).toEqual([
      'BAD_USER_INPUT',
      'registrationDefaultRole cannot be ADMIN',
    ]);
  });

  it('POLICY_EDIT_LOCK refuses every change', async () => {
    f = await startFixture({ POLICY_EDIT_LOCK: 'true' });
    const response = await f.call(
      'mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }',
      undefined,
      'admin',
    );
    expect([errorCode(response), response.errors?.[0]?.message]).toEqual([
      'FORBIDDEN',
      'Auth policy is locked by configuration',
    ]);
    expect((await f.call('{ publicAuthPolicy { policyEditLock } }')).data?.publicAuthPolicy).toEqual({
      policyEditLock: true,
    });
  });
});

describe('audit', () => {
  it('lists newest first, clamps the limit and treats the prefix literally', async () => {
    f = await startFixture();
    const list = async (args: string) =>
      (await f.call(`{ adminAuditEvents${args ? `(${args})` : ''} { _id action } }`, undefined, 'admin')).data
        ?.adminAuditEvents as {
        _id: string;
        action: string;
      }[];
    const all = await list('limit: 0');
    expect(all.length).toBe(1);
    const every = await list('');
    // The bootstrap admin's ready Winder dashboard is recorded right after the admin.
    expect(every.map((e) => e.action)).toEqual([
      'user.admin_created',
      'user.admin_created',
      'dashboard.created',
      'user.admin_created',
    ]);
    expect(every.map((e) => Number(e._id))).toEqual([4, 3, 2, 1]);
    expect(await list('actionPrefix: "user.%"')).toEqual([]);
    expect(await list('actionPrefix: "user_admin"')).toEqual([]);
    expect((await list('actionPrefix: "user.admin"')).length).toBe(3);
  });

  it('a failed audit write leaves the result unchanged and is counted', async () => {
    f = await startFixture();
    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'));
    try {
      sqlite.exec('ALTER TABLE audit_events RENAME TO audit_events_away');
      const response = await f.call(
        'mutation { setAuthPolicy(editorCanPublish: true) { editorCanPublish } }',
        undefined,
        'admin',
      );
      expect(response.data).toEqual({ setAuthPolicy: { editorCanPublish: true } });
      const metrics = await f.call(
        '{ adminRuntimeMetrics { api { auditWriteFailureCount } } }',
        undefined,
        'admin',
      );
      expect(metrics.data?.adminRuntimeMetrics).toEqual({ api: { auditWriteFailureCount: 1 } });
    } finally {
      sqlite.close();
    }
  });

  it('unexpected failures are masked and leave stored data intact', async () => {
    f = await startFixture();
    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'));
    try {
      sqlite.exec('ALTER TABLE password_reset_tokens RENAME TO resets_away');
      const response = await f.call(
        'mutation($id: ID!) { adminIssuePasswordReset(_id: $id) { token } }',
        { id: f.ids.viewer },
        'admin',
      );
      expect(response.status).toBe(200);
      expect(response.errors).toEqual([
        {
          message: 'Unexpected error.',
          locations: [{ line: 1, column: 22 }],
          path: ['adminIssuePasswordReset'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ]);
      expect(response.raw).not.toMatch(/resets|sqlite|at /i);
      sqlite.exec('ALTER TABLE resets_away RENAME TO password_reset_tokens');
      expect(sqlite.prepare('SELECT COUNT(*) AS n FROM password_reset_tokens').get()).toEqual({ n: 0 });
    } finally {
      sqlite.close();
    }
  });
});
