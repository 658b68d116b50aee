// Invitations over GraphQL (§6.3): the SDL and thin resolvers; the rules are in
// server/accounts/invites.ts.
import { acceptInvite, createInvite, listPendingInvites, revokeInvite } from '../../accounts/invites.ts';
import type { InviteRow } from '../../db/repositories/invites.ts';
import { requireAdmin } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { tokenView } from './accounts.ts';

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

export const resolvers: Resolvers = {
  Query: {
    listPendingInvites: (_, __, context) => {
      requireAdmin(context);
      return listPendingInvites(context.services).map(toInviteView);
    },
  },
  Mutation: {
    adminCreateInvite: (_, args, context) => {
      const { invite, token } = createInvite(context.services, requireAdmin(context), args);
      return { invite: toInviteView(invite), token };
    },
    adminRevokeInvite: (_, args, context) => revokeInvite(context.services, requireAdmin(context), args._id),
    acceptInvite: (_, args, context) => tokenView(acceptInvite(context.services, args)),
  },
};
