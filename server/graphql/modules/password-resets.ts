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

/** Stores a new token for the user, revoking their earlier unused ones; returns the plain token. */
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
  store.passwordResets.revokeUnused(userId, iso(now));
  store.passwordResets.insert(row);
  return { token, row };
}

const INVALID_RESET = 'Invalid or expired reset token';

export const resolvers = {
  Mutation: {
    requestPasswordReset: (_: unknown, args: { email: string }, context: RequestContext): boolean => {
      const { services } = context;
      const { store, audit, logger } = services;
      try {
        const email = normaliseEmail(args.email);
        if (!isValidEmail(email)) return true;
        const user = store.transaction(() => {
          const found = store.users.byEmail(email);
          if (found) issue(services, found.id, 2, null);
          return found;
        });
        if (user) {
          audit.record({
            actorUserId: null,
            action: 'password_reset.requested',
            targetType: 'user',
            targetId: user.id,
          });
        }
      } catch (error) {
        // Never an error: the answer must not reveal whether the address has an account.
        logger.error({ err: error }, 'requestPasswordReset failed');
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
        store.passwordResets.revokeUnused(user.id, now, row.id);
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
