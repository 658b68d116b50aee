// Password resets over GraphQL (§6.4): the SDL and thin resolvers; the rules are in
// server/accounts/password-resets.ts.
import { issuePasswordReset, requestPasswordReset, resetPassword } from '../../accounts/password-resets.ts';
import { requireAdmin } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { callerAddresses } from './accounts.ts';

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

export const resolvers: Resolvers = {
  Mutation: {
    requestPasswordReset: (_, args, context) => {
      requestPasswordReset(context.services, callerAddresses(context), args.email);
      return true;
    },
    adminIssuePasswordReset: (_, args, context) =>
      issuePasswordReset(context.services, requireAdmin(context), args._id, args.expiresInHours),
    resetPassword: async (_, args, context) => {
      await resetPassword(context.services, args);
      return true;
    },
  },
};
