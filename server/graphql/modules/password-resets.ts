import { isValidEmail, normaliseEmail } from '../../auth/email.ts';
import { iso } from '../../auth/tokens.ts';
import type { PasswordResetRow } from '../../db/repositories/password-resets.ts';
import { type ApiServices, type RequestContext, requireAdmin } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { clampHours, newOneTimeToken, requireStrongPassword } from './accounts.ts';

export const typeDefs = /* GraphQL */ `
  "A reset token for an admin to hand over by any channel; shown only once."
  type PasswordResetToken {
    userId: ID!
    token: String!
    expiresAt: String!
  }

  extend type Mutation {
    "Always true. Towpath sends no e-mail: the token stays on the server and an admin completes the reset."
    requestPasswordReset(email: String!): Boolean!
    resetPassword(token: String!, password: String!): Boolean!
    "Admin only. expiresInHours defaults to 24 and is clamped to 1–336."
    adminIssuePasswordReset(_id: ID!, expiresInHours: Int): PasswordResetToken!
  }
`;

/** Stores a new token for the user in place of any earlier one (one live token per account). */
function issue(
  services: ApiServices,
  userId: string,
  hours: number,
  issuedBy: string | null,
): { token: string; row: PasswordResetRow } {
  const { store, clock } = services;
  const now = clock();
  const { token, stored } = newOneTimeToken(services, 'reset', now, hours);
  const row: PasswordResetRow = { ...stored, userId, issuedBy, usedAt: null, revokedAt: null };
  store.passwordResets.deleteForUser(userId);
  store.passwordResets.insert(row);
  return { token, row };
}

const INVALID_RESET = 'Invalid or expired reset token';

/**
 * Acts on a batch of `requestPasswordReset` calls that passed their quota (see ResetRequests): a
 * 2-hour token and an audit event for each email that belongs to a user, nothing for the others.
 */
export function actOnResetRequests(services: ApiServices, emails: string[]): void {
  const { store, audit } = services;
  const requested = store.transaction(() => {
    const users: string[] = [];
    for (const email of emails) {
      const found = store.users.byEmail(email);
      if (!found) continue;
      issue(services, found.id, 2, null);
      users.push(found.id);
    }
    return users;
  });
  for (const userId of requested) {
    audit.record({
      actorUserId: null,
      action: 'password_reset.requested',
      targetType: 'user',
      targetId: userId,
    });
  }
}

export const resolvers = {
  Mutation: {
    requestPasswordReset: (_: unknown, args: { email: string }, context: RequestContext): boolean => {
      const { services, clientIp } = context;
      try {
        const email = normaliseEmail(args.email);
        // The same work for every address from here on: whether it has an account is decided later.
        if (isValidEmail(email)) services.resetRequests.request(email, clientIp);
      } catch (error) {
        // Never an error: the answer must not reveal whether the address has an account.
        services.logger.error({ err: error }, 'requestPasswordReset failed');
      }
      return true;
    },

    adminIssuePasswordReset: (
      _: unknown,
      args: { _id: string; expiresInHours?: number | null },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      const { services } = context;
      const { store, audit } = services;
      const hours = clampHours(args.expiresInHours, 24, 1, 336);
      const { token, row } = store.transaction(() => {
        const user = store.users.byId(args._id);
        if (!user) throw notFound('User not found');
        return issue(services, user.id, hours, admin.id);
      });
      audit.record({
        actorUserId: admin.id,
        action: 'password_reset.admin_issued',
        targetType: 'user',
        targetId: row.userId,
        metadata: { expiresAt: row.expiresAt },
      });
      return { userId: row.userId, token, expiresAt: row.expiresAt };
    },

    resetPassword: async (_: unknown, args: { token: string; password: string }, context: RequestContext) => {
      const { services } = context;
      const { store, tokens, passwords, audit, clock } = services;
      const tokenHash = tokens.hash('reset', args.token);
      const usable = () => {
        const row = store.passwordResets.byTokenHash(tokenHash);
        if (!row || row.usedAt !== null || row.revokedAt !== null || row.expiresAt <= iso(clock())) {
          throw forbidden(INVALID_RESET);
        }
        return row;
      };
      usable();
      requireStrongPassword(args.password);
      const passwordHash = await passwords.hash(args.password);
      const reset = store.transaction(() => {
        const row = usable();
        const user = store.users.byId(row.userId);
        if (!user) throw forbidden(INVALID_RESET);
        const now = iso(clock());
        store.users.update(user.id, { passwordHash, sessionVersion: user.sessionVersion + 1 });
        store.passwordResets.markUsed(row.id, now);
        store.passwordResets.deleteForUser(user.id, row.id);
        return row;
      });
      audit.record({
        actorUserId: null,
        action: 'password_reset.completed',
        targetType: 'user',
        targetId: reset.userId,
      });
      context.services.bus.publish({ kind: 'user', userId: reset.userId, change: 'password' });
      return true;
    },
  },
};
