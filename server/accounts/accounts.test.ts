// The account rules called as the gateway, start-up or the CLI will call them: straight on the
// services over a real SQLite file, no GraphQL in between. Refusals are ServiceErrors with the §4
// codes and messages, and leave the stored data as it was.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SETUP_CODE_REQUIRED } from '../auth/setup-code.ts';
import { loadConfig } from '../config/index.ts';
import type { Change } from '../dashboards/bus.ts';
import type { UserRow } from '../db/repositories/users.ts';
import { ServiceError } from '../errors.ts';
import { type OpenedServices, openServices } from '../services.ts';
import { PASSWORD } from '../testing/accounts.ts';
import { TEST_ARGON2_COST } from '../testing/argon2.ts';
import { testClock } from '../testing/clock.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { acceptInvite, createInvite } from './invites.ts';
import { EMAIL_TAKEN, INVALID_CREDENTIALS } from './messages.ts';
import { issuePasswordReset, resetPassword } from './password-resets.ts';
import { publicAuthPolicy, setAuthPolicy } from './policy.ts';
import type { CallerAddresses } from './services.ts';
import { createUser, deleteUser, registerUser, signIn, updateUser } from './users.ts';

const LOCAL: CallerAddresses = { clientIp: '127.0.0.1', socketAddress: '127.0.0.1' };
const LAN: CallerAddresses = { clientIp: '192.0.2.7', socketAddress: '192.0.2.7' };

let opened: OpenedServices | undefined;
afterEach(() => {
  opened?.close();
  opened = undefined;
});

async function open(env: Record<string, string> = {}): Promise<OpenedServices> {
  const config = loadConfig({ AUTH_LOGIN_MAX_ATTEMPTS: '2', ...env }).api;
  opened = await openServices({
    config,
    dataDir: await makeTempDir(),
    logger: pino({ level: 'silent' }),
    clock: testClock(),
    argon2Cost: TEST_ARGON2_COST,
  });
  return opened;
}

/** The ServiceError `work` throws (or rejects with). */
async function refusal(work: () => unknown): Promise<ServiceError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

const withAdmin = { CREATE_ADMIN: 'true', ADMIN_EMAIL: 'admin@towpath.test', ADMIN_PASSWORD: PASSWORD };

function bootstrapAdmin(api: OpenedServices): UserRow {
  const admin = api.services.store.users.byEmail('admin@towpath.test');
  if (!admin) throw new Error('no bootstrap admin');
  return admin;
}

describe('account services without GraphQL', () => {
  it('create the first admin only for a caller on this machine holding the setup code', async () => {
    const api = await open();
    const { services } = api;
    const input = { email: 'first@towpath.test', password: PASSWORD };

    const fromLan = await refusal(() => registerUser(services, LAN, input));
    expect([fromLan.code, fromLan.message]).toEqual(['FORBIDDEN', 'Registration is disabled']);
    const noCode = await refusal(() => registerUser(services, LOCAL, input));
    expect([noCode.code, noCode.message]).toEqual(['FORBIDDEN', SETUP_CODE_REQUIRED]);
    expect(services.store.users.count()).toBe(0);
    expect(publicAuthPolicy(services, LOCAL).registrationDefaultRole).toBe('admin');
    expect(publicAuthPolicy(services, LAN).registrationDefaultRole).toBe('viewer');

    const token = await registerUser(services, LOCAL, { ...input, setupCode: services.setupCode.current });
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    const admin = services.store.users.byEmail('first@towpath.test');
    expect(admin?.role).toBe('admin');
    expect(claims.sub).toBe(admin?.id);
    expect(services.setupCode.current).toBeNull();
    expect(services.store.audit.list(10, 'user.self_registered')[0]?.metadata).toEqual({
      role: 'admin',
      firstRun: true,
    });
  });

  it('take the acting admin explicitly and keep the rules about it', async () => {
    const api = await open(withAdmin);
    const { services } = api;
    const admin = bootstrapAdmin(api);
    const editor = await createUser(services, admin, {
      email: 'Ed@Towpath.test',
      password: PASSWORD,
      role: 'editor',
    });
    expect(editor.email).toBe('ed@towpath.test');

    const again = await refusal(() =>
      createUser(services, admin, { email: 'ed@towpath.test', password: PASSWORD, role: 'viewer' }),
    );
    expect([again.code, again.message]).toEqual(['BAD_USER_INPUT', EMAIL_TAKEN]);
    const self = await refusal(() => updateUser(services, admin, admin.id, { active: false }));
    expect([self.code, self.message]).toEqual(['FORBIDDEN', 'You cannot deactivate your own account']);
    const active = await refusal(() => deleteUser(services, admin, editor.id));
    expect([active.code, active.message]).toEqual(['FORBIDDEN', 'Deactivate the user before deleting']);
    const missing = await refusal(() => deleteUser(services, admin, 'no-such-user'));
    expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'User not found']);
    // Both were created in the same second, so the list's order between them is the ids' (random).
    expect(
      services.store.users
        .list()
        .map((user) => user.email)
        .sort(),
    ).toEqual(['admin@towpath.test', 'ed@towpath.test']);

    // A change ends the user's sessions and tells its subscriptions, after the commit.
    const changes: Change[] = [];
    services.bus.subscribe((change) => changes.push(change));
    const deactivated = updateUser(services, admin, editor.id, { active: false });
    expect(deactivated.sessionVersion).toBe(editor.sessionVersion + 1);
    expect(changes).toEqual([{ kind: 'user', userId: editor.id, change: 'active' }]);
    expect(deleteUser(services, admin, editor.id).id).toBe(editor.id);
    expect(services.store.users.byId(editor.id)).toBeUndefined();
    expect(services.store.audit.list(1, 'user.admin_deleted')[0]?.actorUserId).toBe(admin.id);
  });

  it('throttle sign-in per caller address and say when to retry', async () => {
    const api = await open(withAdmin);
    const { services } = api;
    const wrong = { email: 'admin@towpath.test', password: 'Wrong-password-1!' };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await refusal(() => signIn(services, LAN, wrong));
      expect([refused.code, refused.message]).toEqual(['UNAUTHENTICATED', INVALID_CREDENTIALS]);
    }
    const blocked = await refusal(() => signIn(services, LAN, { ...wrong, password: PASSWORD }));
    expect(blocked.code).toBe('TOO_MANY_REQUESTS');
    const retry = blocked.extensions.retryAfterSeconds;
    expect(retry).toBeGreaterThan(0);
    expect(blocked.message).toBe(`Too many login attempts. Try again in ${retry} seconds.`);
    expect(services.metrics.authFailureCount).toBe(3);
    // Another address is not blocked by the first one's failures on this email yet.
    expect(await signIn(services, LOCAL, { ...wrong, password: PASSWORD })).toMatch(/^ey/);
  });

  it('carry an invite and a reset from the admin to the new account without a transport', async () => {
    const api = await open(withAdmin);
    const { services } = api;
    const admin = bootstrapAdmin(api);
    const { invite, token } = createInvite(services, admin, { email: 'new@towpath.test', role: 'editor' });
    await acceptInvite(services, { token, password: PASSWORD });
    const user = services.store.users.byEmail(invite.email);
    expect(user?.role).toBe('editor');
    const used = await refusal(() => acceptInvite(services, { token, password: PASSWORD }));
    expect([used.code, used.message]).toEqual(['FORBIDDEN', 'Invalid or expired invite']);

    const reset = issuePasswordReset(services, admin, user?.id ?? '', 1000);
    expect(reset.expiresAt).toBe(new Date(services.clock() + 336 * 3_600_000).toISOString());
    await resetPassword(services, { token: reset.token, password: 'An0ther-password!' });
    expect(services.store.users.byId(user?.id ?? '')?.sessionVersion).toBe(1);
    expect(await signIn(services, LAN, { email: 'new@towpath.test', password: 'An0ther-password!' })).toMatch(
      /^ey/,
    );
  });

  it('refuse an ADMIN registration default and store nothing', async () => {
    const api = await open(withAdmin);
    const { services } = api;
    const refused = await refusal(() =>
      setAuthPolicy(services, bootstrapAdmin(api), {
        registrationMode: 'open',
        registrationDefaultRole: 'admin',
      }),
    );
    expect([refused.code, refused.message]).toEqual([
      'BAD_USER_INPUT',
      'registrationDefaultRole cannot be ADMIN',
    ]);
    expect(publicAuthPolicy(services, LAN).registrationMode).toBe('disabled');
  });
});
