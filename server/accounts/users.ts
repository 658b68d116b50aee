// Accounts of spec §6: registration (first run included), sign-in behind the throttle and limiter
// of §16, self-deletion, and the admin's create, update, delete and list. Each write is one
// transaction; audit records, bus notices and dashboard offboarding notices follow the commit.

import type { ThrottleKeyName } from '../auth/login-throttle.ts';
import { LimiterUnavailable } from '../auth/rate-limit.ts';
import { SETUP_CODE_REQUIRED } from '../auth/setup-code.ts';
import { iso } from '../auth/tokens.ts';
import { afterOffboarding, offboardInTransaction } from '../dashboards/offboarding.ts';
import { createWinderDashboard } from '../dashboards/winder.ts';
import type { Role, UserRow } from '../db/repositories/users.ts';
import { ServiceError } from '../errors.ts';
import { checkUserLimit, requireStrongPassword, requireUnusedEmail, validEmail } from './checks.ts';
import {
  DATA_NOT_VALID,
  EMAIL_TAKEN,
  INVALID_CREDENTIALS,
  LOGIN_REQUIRED,
  USER_NOT_FOUND,
} from './messages.ts';
import { isFirstRunCaller, readPolicy } from './policy.ts';
import { newUserRow } from './rows.ts';
import type { AccountServices, CallerAddresses } from './services.ts';

const LAST_ADMIN = 'At least one active admin must remain';

/** A session JWT for `user` (§5.1). */
export function sessionToken(services: AccountServices, user: UserRow): Promise<string> {
  return services.sessions.sign(user);
}

function registrationClosed(mode: string): ServiceError | null {
  if (mode === 'disabled') return new ServiceError('FORBIDDEN', 'Registration is disabled');
  if (mode === 'invite') return new ServiceError('FORBIDDEN', 'Registration is by invitation only');
  return null;
}

/**
 * Self-service sign-up (§6.2), or the first admin on first run (§6.1). Returns a session token for
 * the new account.
 */
export async function registerUser(
  services: AccountServices,
  caller: CallerAddresses,
  input: { email: string; password: string; setupCode?: string | null },
): Promise<string> {
  const { store, passwords, audit } = services;
  const firstRun = isFirstRunCaller(services, caller);
  // Being on the workstation is not enough: a web page open in its browser is too.
  if (firstRun && !services.setupCode.matches(input.setupCode))
    throw new ServiceError('FORBIDDEN', SETUP_CODE_REQUIRED);
  const closed = firstRun ? null : registrationClosed(readPolicy(store).registrationMode);
  if (closed) throw closed;
  const email = validEmail(input.email);
  requireStrongPassword(input.password);
  if (!firstRun) {
    checkUserLimit(services);
    requireUnusedEmail(services, email, DATA_NOT_VALID);
  }
  const passwordHash = await passwords.hash(input.password);
  // Everything is checked again inside the transaction: other registrations ran during the hashing.
  const created = store.transaction(() => {
    if (firstRun && store.users.count() === 0) {
      const user = newUserRow(services, { email, passwordHash, role: 'admin' });
      store.users.insert(user);
      return { user, firstRun: true };
    }
    const policy = readPolicy(store);
    const refused = registrationClosed(policy.registrationMode);
    if (refused) throw refused;
    checkUserLimit(services);
    requireUnusedEmail(services, email, DATA_NOT_VALID);
    const user = newUserRow(services, { email, passwordHash, role: policy.registrationDefaultRole });
    store.users.insert(user);
    return { user, firstRun: false };
  });
  if (created.firstRun) await services.setupCode.consume();
  audit.record({
    actorUserId: created.user.id,
    action: 'user.self_registered',
    targetType: 'user',
    targetId: created.user.id,
    metadata: created.firstRun ? { role: created.user.role, firstRun: true } : { role: created.user.role },
  });
  if (created.firstRun) createWinderDashboard(services.dashboards, created.user, services.logger);
  return sessionToken(services, created.user);
}

/** §6.1 `CREATE_ADMIN=true`: an active admin for that email unless a user already has it. */
export async function createBootstrapAdmin(services: AccountServices): Promise<void> {
  const admin = services.config.bootstrapAdmin;
  if (!admin) return;
  const { store } = services;
  if (store.users.byEmail(admin.email)) return;
  const passwordHash = await services.passwords.hash(admin.password);
  const user = store.transaction(() => {
    if (store.users.byEmail(admin.email)) return null;
    const row = newUserRow(services, { email: admin.email, passwordHash, role: 'admin', active: true });
    store.users.insert(row);
    return row;
  });
  if (!user) return;
  services.logger.info({ email: user.email }, 'created the bootstrap admin');
  services.audit.record({
    actorUserId: null,
    action: 'user.admin_created',
    targetType: 'user',
    targetId: user.id,
    metadata: { role: 'admin', active: true, bootstrap: true },
  });
  // After the account's own audit record, so the log reads in the order things happened.
  createWinderDashboard(services.dashboards, user, services.logger);
}

function limiterDown(services: AccountServices, ip: string, error: unknown): ServiceError {
  services.logger.error({ err: error }, 'security limiter unavailable');
  services.audit.record({
    actorUserId: null,
    action: 'auth.login.limiter_unavailable',
    targetType: 'limiter',
    targetId: null,
    metadata: { ip },
  });
  return new ServiceError('SERVICE_UNAVAILABLE', 'Security limiter unavailable');
}

function withLimiter<T>(services: AccountServices, ip: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof LimiterUnavailable) throw limiterDown(services, ip, error);
    throw error;
  }
}

/** Sign-in (§5.1, §16): a session token, or the throttle's, the limiter's or the account's refusal. */
export async function signIn(
  services: AccountServices,
  caller: CallerAddresses,
  input: { email: string; password: string },
): Promise<string> {
  const { store, passwords, throttle, audit, metrics, config } = services;
  const ip = caller.clientIp;
  const email = validEmail(input.email);

  // One attempt per client IP and per email at a time: the check and the count must not be raced (§16).
  const user = await throttle.exclusive(email, ip, async () => {
    const check = withLimiter(services, ip, () => throttle.check(email, ip));
    if (check.retryAfterSeconds > 0) {
      for (const key of check.firstBlocked) {
        audit.record({
          actorUserId: null,
          action: 'auth.login.blocked',
          targetType: 'limiter',
          targetId: null,
          metadata: { key, email, ip, retryAfterSeconds: check.retryAfterSeconds },
        });
      }
      metrics.authFailureCount += 1;
      throw new ServiceError(
        'TOO_MANY_REQUESTS',
        `Too many login attempts. Try again in ${check.retryAfterSeconds} seconds.`,
        { retryAfterSeconds: check.retryAfterSeconds },
      );
    }

    const found = store.users.byEmail(email);
    // Unknown emails pay the same KDF work, so timing does not tell which addresses have accounts.
    const matches = await passwords.verify(found?.passwordHash ?? passwords.dummyHash, input.password);

    if (!found || !matches) {
      const locked: ThrottleKeyName[] = withLimiter(services, ip, () => throttle.recordFailure(email, ip));
      for (const key of locked) {
        audit.record({
          actorUserId: null,
          action: 'auth.login.locked',
          targetType: 'limiter',
          targetId: null,
          metadata: { key, email, ip, lockSeconds: config.login.lockSeconds },
        });
      }
      metrics.authFailureCount += 1;
      throw new ServiceError('UNAUTHENTICATED', INVALID_CREDENTIALS);
    }
    if (!found.active) {
      metrics.authFailureCount += 1;
      throw new ServiceError('FORBIDDEN', 'Account is deactivated');
    }
    withLimiter(services, ip, () => throttle.clearEmailIp(email, ip));
    return found;
  });

  const rehashed = passwords.needsRehash(user.passwordHash) ? await passwords.hash(input.password) : null;
  const now = iso(services.clock());
  const current = store.transaction(() => {
    const fresh = store.users.byId(user.id);
    if (!fresh) return undefined;
    // A rehash only replaces the hash it was verified against; a concurrent reset wins.
    const patch =
      rehashed && fresh.passwordHash === user.passwordHash
        ? { lastLogin: now, passwordHash: rehashed }
        : { lastLogin: now };
    return store.users.update(user.id, patch);
  });
  if (!current) throw new ServiceError('UNAUTHENTICATED', INVALID_CREDENTIALS);
  return sessionToken(services, current);
}

/** §6.6: `me` deletes its own account; its dashboards go to the oldest other active admin. */
export function deleteOwnAccount(services: AccountServices, me: UserRow): UserRow {
  const { store, audit } = services;
  const result = store.transaction(() => {
    const user = store.users.byId(me.id);
    if (!user) throw new ServiceError('UNAUTHENTICATED', LOGIN_REQUIRED);
    if (user.role === 'admin' && user.active && store.users.countActiveAdmins() <= 1)
      throw new ServiceError('FORBIDDEN', LAST_ADMIN);
    const successor = store.users.oldestActiveAdminExcept(user.id);
    const owns = store.dashboards.ownedBy(user.id).length > 0;
    if (owns && !successor)
      throw new ServiceError('FORBIDDEN', 'No active admin can take over your dashboards');
    // Without a successor the user owns nothing (checked above), so only ACL entries are removed.
    const offboarding = offboardInTransaction(services, user.id, successor?.id ?? user.id);
    store.users.delete(user.id);
    return { user, offboarding };
  });
  afterOffboarding(services, me.id, result.offboarding);
  audit.record({
    actorUserId: me.id,
    action: 'user.self_deleted',
    targetType: 'user',
    targetId: me.id,
    metadata: { reassignedDashboards: result.offboarding.reassigned.length },
  });
  return result.user;
}

/** Every account, oldest first. */
export function listUsers(services: AccountServices): UserRow[] {
  return services.store.users.list();
}

export async function createUser(
  services: AccountServices,
  admin: UserRow,
  input: { email: string; password: string; role: Role; active?: boolean | null },
): Promise<UserRow> {
  const { store, passwords, audit } = services;
  const email = validEmail(input.email);
  requireStrongPassword(input.password);
  requireUnusedEmail(services, email, EMAIL_TAKEN);
  checkUserLimit(services);
  const passwordHash = await passwords.hash(input.password);
  const active = input.active ?? true;
  const user = store.transaction(() => {
    requireUnusedEmail(services, email, EMAIL_TAKEN);
    checkUserLimit(services);
    const row = newUserRow(services, { email, passwordHash, role: input.role, active });
    store.users.insert(row);
    return row;
  });
  audit.record({
    actorUserId: admin.id,
    action: 'user.admin_created',
    targetType: 'user',
    targetId: user.id,
    metadata: { role: user.role, active: user.active },
  });
  return user;
}

/**
 * Changes a user's role or active state; a change ends that user's sessions (session version + 1)
 * and re-validates its subscriptions (§9). Omitted (or null) fields stay as they are.
 */
export function updateUser(
  services: AccountServices,
  admin: UserRow,
  userId: string,
  input: { role?: Role | null; active?: boolean | null },
): UserRow {
  const { store, audit } = services;
  const update: { role?: Role; active?: boolean } = {};
  if (input.role !== undefined && input.role !== null) update.role = input.role;
  if (input.active !== undefined && input.active !== null) update.active = input.active;
  const result = store.transaction(() => {
    const target = store.users.byId(userId);
    if (!target) throw new ServiceError('NOT_FOUND', USER_NOT_FOUND);
    if (update.role === undefined && update.active === undefined)
      return { user: target, changed: false, given: false };
    const self = target.id === admin.id;
    if (self && update.role !== undefined && update.role !== target.role) {
      throw new ServiceError('FORBIDDEN', 'You cannot change your own role');
    }
    if (self && update.active === false)
      throw new ServiceError('FORBIDDEN', 'You cannot deactivate your own account');
    const role = update.role ?? target.role;
    const active = update.active ?? target.active;
    const wasActiveAdmin = target.role === 'admin' && target.active;
    const staysActiveAdmin = role === 'admin' && active;
    if (wasActiveAdmin && !staysActiveAdmin && store.users.countActiveAdmins() <= 1)
      throw new ServiceError('FORBIDDEN', LAST_ADMIN);
    const changed = role !== target.role || active !== target.active;
    const user = changed
      ? (store.users.update(target.id, { role, active, sessionVersion: target.sessionVersion + 1 }) ?? target)
      : target;
    return { user, changed, given: true };
  });
  if (result.given) {
    audit.record({
      actorUserId: admin.id,
      action: 'user.admin_updated',
      targetType: 'user',
      targetId: result.user.id,
      metadata: { update, sessionsRevoked: result.changed },
    });
  }
  // Sessions of that user ended: its subscriptions re-validate (§9).
  if (result.changed)
    services.bus.publish({
      kind: 'user',
      userId: result.user.id,
      change: update.active !== undefined ? 'active' : 'role',
    });
  return result.user;
}

/** Deletes a deactivated user; its dashboards go to the deleting admin (§6.6). */
export function deleteUser(services: AccountServices, admin: UserRow, userId: string): UserRow {
  const { store, audit } = services;
  const result = store.transaction(() => {
    const target = store.users.byId(userId);
    if (!target) throw new ServiceError('NOT_FOUND', USER_NOT_FOUND);
    if (target.id === admin.id) {
      throw new ServiceError('FORBIDDEN', 'You cannot delete your own account here; use deleteMyUserAccount');
    }
    if (target.active) throw new ServiceError('FORBIDDEN', 'Deactivate the user before deleting');
    const offboarding = offboardInTransaction(services, target.id, admin.id);
    store.users.delete(target.id);
    return { target, offboarding };
  });
  afterOffboarding(services, admin.id, result.offboarding);
  audit.record({
    actorUserId: admin.id,
    action: 'user.admin_deleted',
    targetType: 'user',
    targetId: result.target.id,
    metadata: { email: result.target.email, reassignedDashboards: result.offboarding.reassigned.length },
  });
  return result.target;
}
