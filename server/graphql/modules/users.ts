// Accounts over GraphQL (§6): the SDL and thin resolvers. Who may call at all is in the
// authorisation table; the account rules are in server/accounts/users.ts.
import {
  createUser,
  deleteOwnAccount,
  deleteUser,
  listUsers,
  registerUser,
  signIn,
  updateUser,
} from '../../accounts/users.ts';
import { requireAdmin, requireUser } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { callerAddresses, tokenView, toUserView } from './accounts.ts';

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

export const resolvers: Resolvers = {
  Query: {
    me: (_, __, context) => toUserView(requireUser(context)),
    listAllUsers: (_, __, context) => {
      requireAdmin(context);
      return listUsers(context.services).map(toUserView);
    },
  },
  Mutation: {
    registerUser: (_, args, context) =>
      tokenView(registerUser(context.services, callerAddresses(context), args)),
    authUser: (_, args, context) => tokenView(signIn(context.services, callerAddresses(context), args)),
    deleteMyUserAccount: (_, __, context) =>
      toUserView(deleteOwnAccount(context.services, requireUser(context))),
    adminCreateUser: async (_, args, context) =>
      toUserView(await createUser(context.services, requireAdmin(context), args)),
    adminUpdateUser: (_, args, context) =>
      toUserView(
        updateUser(context.services, requireAdmin(context), args._id, {
          role: args.role,
          active: args.active,
        }),
      ),
    adminDeleteUser: (_, args, context) =>
      toUserView(deleteUser(context.services, requireAdmin(context), args._id)),
  },
};
