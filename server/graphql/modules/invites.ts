import { iso } from '../../auth/tokens.ts';
import type { InviteRow } from '../../db/repositories/invites.ts';
import { type RequestContext, requireAdmin } from '../context.ts';
import { badUserInput, forbidden, notFound } from '../errors.ts';
import {
  checkUserLimit,
  clampHours,
  DATA_NOT_VALID,
  EMAIL_TAKEN,
  newOneTimeToken,
  newUserRow,
  requireStrongPassword,
  requireUnusedEmail,
  sessionToken,
  validEmail,
} from './accounts.ts';

export const typeDefs = /* GraphQL */ `
  "An invitation; its token is shown only once, when it is created."
  type Invite {
    _id: ID!
    email: String!
    role: UserRole!
    expiresAt: String!
    revokedAt: String
    acceptedAt: String
    createdAt: String!
  }

  type InviteToken {
    invite: Invite!
    token: String!
  }

  extend type Query {
    "Admin only; pending invites, newest first."
    listPendingInvites: [Invite]!
  }

  extend type Mutation {
    "Admin only. expiresInHours defaults to 72 and is clamped to 1–336."
    adminCreateInvite(email: String!, role: UserRole!, expiresInHours: Int): InviteToken!
    adminRevokeInvite(_id: ID!): Boolean!
    acceptInvite(token: String!, password: String!): Token
  }
`;

function toInviteView(row: InviteRow) {
  return {
    _id: row.id,
    email: row.email,
    role: row.role,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    acceptedAt: row.acceptedAt,
    createdAt: row.createdAt,
  };
}

function isPending(row: InviteRow, nowIso: string): boolean {
  return row.revokedAt === null && row.acceptedAt === null && row.expiresAt > nowIso;
}

const INVALID_INVITE = 'Invalid or expired invite';

export const resolvers = {
  Query: {
    listPendingInvites: (_: unknown, __: unknown, context: RequestContext) => {
      requireAdmin(context);
      const { store, clock } = context.services;
      return store.invites.pending(iso(clock())).map(toInviteView);
    },
  },
  Mutation: {
    adminCreateInvite: (
      _: unknown,
      args: { email: string; role: 'viewer' | 'editor' | 'admin'; expiresInHours?: number | null },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      const { services } = context;
      const { store, audit, clock } = services;
      const email = validEmail(args.email);
      const role = args.role;
      if (role === 'admin') throw badUserInput('Invites can grant only VIEWER or EDITOR');
      const hours = clampHours(args.expiresInHours, 72, 1, 336);
      const now = clock();
      const { token, stored } = newOneTimeToken(services, 'invite', now, hours);
      const { invite, revokedPrevious } = store.transaction(() => {
        requireUnusedEmail(services, email, EMAIL_TAKEN);
        checkUserLimit(services);
        const revokedPrevious = store.invites.revokePendingFor(email, iso(now));
        const invite: InviteRow = {
          ...stored,
          email,
          role,
          revokedAt: null,
          acceptedAt: null,
          createdBy: admin.id,
        };
        store.invites.insert(invite);
        return { invite, revokedPrevious };
      });
      audit.record({
        actorUserId: admin.id,
        action: 'invite.created',
        targetType: 'invite',
        targetId: invite.id,
        metadata: { email, role, expiresAt: invite.expiresAt, revokedPrevious },
      });
      return { invite: toInviteView(invite), token };
    },

    adminRevokeInvite: (_: unknown, args: { _id: string }, context: RequestContext): boolean => {
      const admin = requireAdmin(context);
      const { store, audit, clock } = context.services;
      const now = iso(clock());
      const invite = store.transaction(() => {
        const row = store.invites.byId(args._id);
        if (!row) throw notFound('Invite not found');
        if (!isPending(row, now)) return null;
        store.invites.update(row.id, { revokedAt: now });
        return row;
      });
      if (!invite) return false;
      audit.record({
        actorUserId: admin.id,
        action: 'invite.revoked',
        targetType: 'invite',
        targetId: invite.id,
        metadata: { email: invite.email },
      });
      return true;
    },

    acceptInvite: async (_: unknown, args: { token: string; password: string }, context: RequestContext) => {
      const { services } = context;
      const { store, tokens, passwords, audit, clock } = services;
      const tokenHash = tokens.hash('invite', args.token);
      const usable = () => {
        const row = store.invites.byTokenHash(tokenHash);
        if (!row || !isPending(row, iso(clock()))) throw forbidden(INVALID_INVITE);
        return row;
      };
      const found = usable();
      requireStrongPassword(args.password);
      requireUnusedEmail(services, found.email, DATA_NOT_VALID);
      checkUserLimit(services);
      const passwordHash = await passwords.hash(args.password);
      const { user, invite } = store.transaction(() => {
        // Another request may have accepted or revoked it while the password was hashed.
        const invite = usable();
        requireUnusedEmail(services, invite.email, DATA_NOT_VALID);
        checkUserLimit(services);
        const user = newUserRow(services, { email: invite.email, passwordHash, role: invite.role });
        store.users.insert(user);
        store.invites.update(invite.id, { acceptedAt: user.registrationDate });
        return { user, invite };
      });
      audit.record({
        actorUserId: user.id,
        action: 'invite.accepted',
        targetType: 'invite',
        targetId: invite.id,
        metadata: { email: invite.email, role: invite.role },
      });
      return sessionToken(services, user);
    },
  },
};
