import type { GraphQLError } from 'graphql';
import { LimiterUnavailable, type ThrottleKeyName } from '../../auth/limiter.ts';
import { SETUP_CODE_REQUIRED } from '../../auth/setup-code.ts';
import { iso } from '../../auth/tokens.ts';
import { createWinderDashboard } from '../../dashboards/winder.ts';
import type { Role } from '../../db/repositories/users.ts';
import { type ApiServices, type RequestContext, requireAdmin, requireUser } from '../context.ts';
import {
  forbidden,
  INVALID_CREDENTIALS,
  notFound,
  serviceUnavailable,
  tooManyRequests,
  unauthenticated,
} from '../errors.ts';
import {
  checkUserLimit,
  DATA_NOT_VALID,
  EMAIL_TAKEN,
  newUserRow,
  requireStrongPassword,
  requireUnusedEmail,
  sessionToken,
  toUserView,
  type UserView,
  validEmail,
} from './accounts.ts';
import { isFirstRunCaller, readPolicy } from './policy.ts';

export const typeDefs = /* GraphQL */ `
  "An account. Role and active state are authoritative here, never in a token."
  type User {
    _id: ID!
    email: String!
    role: UserRole!
    active: Boolean!
    "ISO 8601 UTC."
    registrationDate: String!
    "ISO 8601 UTC; equals registrationDate until the first sign-in."
    lastLogin: String!
  }

  "A session: a JWT to send as Authorization: Bearer <token>."
  type Token {
    token: String
  }

  extend type Query {
    "The caller's own account."
    me: User
    "Admin only; oldest first."
    listAllUsers: [User]
  }

  extend type Mutation {
    "While nobody has an account, a caller on the workstation creates the first admin with the setup code it printed."
    registerUser(email: String!, password: String!, setupCode: String): Token
    authUser(email: String!, password: String!): Token
    deleteMyUserAccount: User!
    adminCreateUser(email: String!, password: String!, role: UserRole!, active: Boolean): User!
    adminUpdateUser(_id: ID!, role: UserRole, active: Boolean): User!
    adminDeleteUser(_id: ID!): User!
  }
`;

const LAST_ADMIN = 'At least one active admin must remain';

function registrationClosed(mode: string): GraphQLError | null {
  if (mode === 'disabled') return forbidden('Registration is disabled');
  if (mode === 'invite') return forbidden('Registration is by invitation only');
  return null;
}

async function registerUser(
  _: unknown,
  args: { email: string; password: string; setupCode?: string | null },
  context: RequestContext,
): Promise<{ token: string }> {
  const { services } = context;
  const { store, passwords, audit } = services;
  const firstRun = isFirstRunCaller(context);
  // Being on the workstation is not enough: a web page open in its browser is too (issue 10).
  if (firstRun && !services.setupCode.matches(args.setupCode)) throw forbidden(SETUP_CODE_REQUIRED);
  const closed = firstRun ? null : registrationClosed(readPolicy(store).registrationMode);
  if (closed) throw closed;
  const email = validEmail(args.email);
  requireStrongPassword(args.password);
  if (!firstRun) {
    checkUserLimit(services);
    requireUnusedEmail(services, email, DATA_NOT_VALID);
  }
  const passwordHash = await passwords.hash(args.password);
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

function limiterDown(services: ApiServices, ip: string, error: unknown): GraphQLError {
  services.logger.error({ err: error }, 'security limiter unavailable');
  services.audit.record({
    actorUserId: null,
    action: 'auth.login.limiter_unavailable',
    targetType: 'limiter',
    targetId: null,
    metadata: { ip },
  });
  return serviceUnavailable();
}

function withLimiter<T>(services: ApiServices, ip: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof LimiterUnavailable) throw limiterDown(services, ip, error);
    throw error;
  }
}

async function authUser(
  _: unknown,
  args: { email: string; password: string },
  context: RequestContext,
): Promise<{ token: string }> {
  const { services, clientIp: ip } = context;
  const { store, passwords, throttle, audit, metrics, config } = services;
  const email = validEmail(args.email);

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
      throw tooManyRequests(
        `Too many login attempts. Try again in ${check.retryAfterSeconds} seconds.`,
        check.retryAfterSeconds,
      );
    }

    const found = store.users.byEmail(email);
    // Unknown emails pay the same KDF work, so timing does not tell which addresses have accounts.
    const matches = await passwords.verify(found?.passwordHash ?? passwords.dummyHash, args.password);

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
      throw unauthenticated(INVALID_CREDENTIALS);
    }
    if (!found.active) {
      metrics.authFailureCount += 1;
      throw forbidden('Account is deactivated');
    }
    withLimiter(services, ip, () => throttle.clearEmailIp(email, ip));
    return found;
  });

  const rehashed = passwords.needsRehash(user.passwordHash) ? await passwords.hash(args.password) : null;
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
  if (!current) throw unauthenticated(INVALID_CREDENTIALS);
  return sessionToken(services, current);
}

function deleteMyUserAccount(_: unknown, __: unknown, context: RequestContext): UserView {
  const me = requireUser(context);
  const { services } = context;
  const { store, audit } = services;
  const result = store.transaction(() => {
    const user = store.users.byId(me.id);
    if (!user) throw unauthenticated();
    if (user.role === 'admin' && user.active && store.users.countActiveAdmins() <= 1)
      throw forbidden(LAST_ADMIN);
    const successor = store.users.oldestActiveAdminExcept(user.id);
    const owns = store.dashboards.ownedBy(user.id).length > 0;
    if (owns && !successor) throw forbidden('No active admin can take over your dashboards');
    // Without a successor the user owns nothing (checked above), so only ACL entries are removed.
    const offboarding = services.dashboards.offboardInTransaction(user.id, successor?.id ?? user.id);
    store.users.delete(user.id);
    return { user, offboarding };
  });
  services.dashboards.afterOffboarding(me.id, result.offboarding);
  audit.record({
    actorUserId: me.id,
    action: 'user.self_deleted',
    targetType: 'user',
    targetId: me.id,
    metadata: { reassignedDashboards: result.offboarding.reassigned.length },
  });
  return toUserView(result.user);
}

async function adminCreateUser(
  _: unknown,
  args: { email: string; password: string; role: Role; active?: boolean | null },
  context: RequestContext,
): Promise<UserView> {
  const admin = requireAdmin(context);
  const { services } = context;
  const { store, passwords, audit } = services;
  const email = validEmail(args.email);
  requireStrongPassword(args.password);
  requireUnusedEmail(services, email, EMAIL_TAKEN);
  checkUserLimit(services);
  const passwordHash = await passwords.hash(args.password);
  const active = args.active ?? true;
  const user = store.transaction(() => {
    requireUnusedEmail(services, email, EMAIL_TAKEN);
    checkUserLimit(services);
    const row = newUserRow(services, { email, passwordHash, role: args.role, active });
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
  return toUserView(user);
}

function adminUpdateUser(
  _: unknown,
  args: { _id: string; role?: Role | null; active?: boolean | null },
  context: RequestContext,
): UserView {
  const admin = requireAdmin(context);
  const { services } = context;
  const { store, audit } = services;
  const update: { role?: Role; active?: boolean } = {};
  if (args.role !== undefined && args.role !== null) update.role = args.role;
  if (args.active !== undefined && args.active !== null) update.active = args.active;
  const result = store.transaction(() => {
    const target = store.users.byId(args._id);
    if (!target) throw notFound('User not found');
    if (update.role === undefined && update.active === undefined)
      return { user: target, changed: false, given: false };
    const self = target.id === admin.id;
    if (self && update.role !== undefined && update.role !== target.role) {
      throw forbidden('You cannot change your own role');
    }
    if (self && update.active === false) throw forbidden('You cannot deactivate your own account');
    const role = update.role ?? target.role;
    const active = update.active ?? target.active;
    const wasActiveAdmin = target.role === 'admin' && target.active;
    const staysActiveAdmin = role === 'admin' && active;
    if (wasActiveAdmin && !staysActiveAdmin && store.users.countActiveAdmins() <= 1)
      throw forbidden(LAST_ADMIN);
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
  return toUserView(result.user);
}

function adminDeleteUser(_: unknown, args: { _id: string }, context: RequestContext): UserView {
  const admin = requireAdmin(context);
  const { services } = context;
  const { store, audit } = services;
  const result = store.transaction(() => {
    const target = store.users.byId(args._id);
    if (!target) throw notFound('User not found');
    if (target.id === admin.id) {
      throw forbidden('You cannot delete your own account here; use deleteMyUserAccount');
    }
    if (target.active) throw forbidden('Deactivate the user before deleting');
    const offboarding = services.dashboards.offboardInTransaction(target.id, admin.id);
    store.users.delete(target.id);
    return { target, offboarding };
  });
  services.dashboards.afterOffboarding(admin.id, result.offboarding);
  audit.record({
    actorUserId: admin.id,
    action: 'user.admin_deleted',
    targetType: 'user',
    targetId: result.target.id,
    metadata: { email: result.target.email, reassignedDashboards: result.offboarding.reassigned.length },
  });
  return toUserView(result.target);
}

export const resolvers = {
  Query: {
    me: (_: unknown, __: unknown, context: RequestContext) => toUserView(requireUser(context)),
    listAllUsers: (_: unknown, __: unknown, context: RequestContext) => {
      requireAdmin(context);
      return context.services.store.users.list().map(toUserView);
    },
  },
  Mutation: {
    registerUser,
    authUser,
    deleteMyUserAccount,
    adminCreateUser,
    adminUpdateUser,
    adminDeleteUser,
  },
};
