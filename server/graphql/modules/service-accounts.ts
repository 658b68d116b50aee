// Service accounts over GraphQL (spec §12): SDL and thin resolvers; the rules live in
// server/service-accounts/. A full token appears only in the answer to issue and rotate.
import { requireAdmin } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { STORED_ENUMS } from '../stored-enums.ts';

export const typeDefs = /* GraphQL */ `
  enum ServiceAccountScope {
    "mintDatasourceSessionToken (public flow, subject sa:<id>)."
    DATASOURCE_MINT
    "adminDatasourceDiagnostics."
    DATASOURCE_DIAGNOSTICS_READ
    "adminRuntimeMetrics."
    OPS_READ
  }

  "A machine caller authenticated by fsa_ tokens."
  type ServiceAccount {
    _id: ID!
    name: String!
    description: String!
    scopes: [ServiceAccountScope!]!
    active: Boolean!
    lastUsedAt: String
    "Tokens neither revoked nor expired."
    tokenCount: Int!
    createdAt: String!
    updatedAt: String!
  }

  type ServiceAccountTokenRecord {
    _id: ID!
    serviceAccountId: ID!
    label: String
    "What the token may do, as far as its account still holds it."
    scopes: [ServiceAccountScope!]!
    "fsa_<id>.<first 8 characters of the secret>..."
    tokenPreview: String!
    expiresAt: String
    revokedAt: String
    lastUsedAt: String
    createdAt: String!
    "A token changes only when it is revoked: revokedAt then, else createdAt."
    updatedAt: String!
  }

  type IssuedServiceAccountToken {
    "The full token, shown only here: it is stored as a hash."
    token: String!
    tokenRecord: ServiceAccountTokenRecord!
  }

  input ServiceAccountInput {
    name: String!
    description: String
    "Required in effect: none or an empty list is BAD_USER_INPUT \\"At least one scope is required\\"."
    scopes: [ServiceAccountScope!]
    active: Boolean
  }

  "Omitted fields stay unchanged."
  input UpdateServiceAccountInput {
    name: String
    description: String
    scopes: [ServiceAccountScope!]
    active: Boolean
  }

  extend type Query {
    "Ordered by name."
    adminServiceAccounts: [ServiceAccount!]!
    "All tokens of the account, newest first."
    adminServiceAccountTokens(serviceAccountId: ID!): [ServiceAccountTokenRecord!]!
  }

  extend type Mutation {
    adminCreateServiceAccount(input: ServiceAccountInput!): ServiceAccount!
    adminUpdateServiceAccount(_id: ID!, input: UpdateServiceAccountInput!): ServiceAccount!
    "Removes the account and its tokens; returns it with tokenCount 0."
    adminDeleteServiceAccount(_id: ID!): ServiceAccount!
    "scopes: a non-empty subset of the account's, all of them when omitted; expiresInHours: omitted never expires, else clamped to 1–8760."
    adminIssueServiceAccountToken(
      serviceAccountId: ID!
      label: String
      scopes: [ServiceAccountScope!]
      expiresInHours: Int
    ): IssuedServiceAccountToken!
    "Revokes the token and issues one with the same label and scopes; lifetime expiresInHours, else the old one's."
    adminRotateServiceAccountToken(_id: ID!, expiresInHours: Int): IssuedServiceAccountToken!
    "True if this call revoked it, false if it already was."
    adminRevokeServiceAccountToken(_id: ID!): Boolean!
  }
`;

export const resolvers: Resolvers = {
  ServiceAccountScope: STORED_ENUMS.ServiceAccountScope,
  ServiceAccount: { _id: (view) => view.id },
  ServiceAccountTokenRecord: { _id: (view) => view.id },
  IssuedServiceAccountToken: { tokenRecord: (issued) => issued.record },
  Query: {
    adminServiceAccounts: (_, __, context) => context.services.serviceAccounts.list(),
    adminServiceAccountTokens: (_, args, context) =>
      context.services.serviceAccounts.tokens(args.serviceAccountId),
  },
  Mutation: {
    adminCreateServiceAccount: (_, args, context) =>
      context.services.serviceAccounts.create(requireAdmin(context).id, args.input),
    adminUpdateServiceAccount: (_, args, context) =>
      context.services.serviceAccounts.update(requireAdmin(context).id, args._id, args.input),
    adminDeleteServiceAccount: (_, args, context) =>
      context.services.serviceAccounts.delete(requireAdmin(context).id, args._id),
    adminIssueServiceAccountToken: (_, { serviceAccountId, ...token }, context) =>
      context.services.serviceAccounts.issue(requireAdmin(context).id, serviceAccountId, token),
    adminRotateServiceAccountToken: (_, args, context) =>
      context.services.serviceAccounts.rotate(requireAdmin(context).id, args._id, args.expiresInHours),
    adminRevokeServiceAccountToken: (_, args, context) =>
      context.services.serviceAccounts.revoke(requireAdmin(context).id, args._id),
  },
};
