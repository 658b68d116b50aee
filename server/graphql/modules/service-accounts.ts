// Service accounts over GraphQL (spec §12): SDL and thin resolvers; the rules live in
// server/service-accounts/. A full token appears only in the answer to issue and rotate.
import type {
  IssuedToken,
  ServiceAccountInput,
  ServiceAccountTokenView,
  ServiceAccountView,
  TokenInput,
} from '../../service-accounts/service.ts';
import { type RequestContext, requireAdmin } from '../context.ts';

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

const accountView = (view: ServiceAccountView) => ({ ...view, _id: view.id });
const tokenView = (view: ServiceAccountTokenView) => ({ ...view, _id: view.id });
const issuedView = (issued: IssuedToken) => ({ token: issued.token, tokenRecord: tokenView(issued.record) });

export const resolvers = {
  ServiceAccountScope: {
    DATASOURCE_MINT: 'datasource:mint',
    DATASOURCE_DIAGNOSTICS_READ: 'datasource:diagnostics:read',
    OPS_READ: 'ops:read',
  },
  Query: {
    adminServiceAccounts: (_: unknown, __: unknown, context: RequestContext) =>
      context.services.serviceAccounts.list().map(accountView),
    adminServiceAccountTokens: (_: unknown, args: { serviceAccountId: string }, context: RequestContext) =>
      context.services.serviceAccounts.tokens(args.serviceAccountId).map(tokenView),
  },
  Mutation: {
    adminCreateServiceAccount: (
      _: unknown,
      args: { input: ServiceAccountInput & { name: string } },
      context: RequestContext,
    ) => accountView(context.services.serviceAccounts.create(requireAdmin(context).id, args.input)),
    adminUpdateServiceAccount: (
      _: unknown,
      args: { _id: string; input: ServiceAccountInput },
      context: RequestContext,
    ) => accountView(context.services.serviceAccounts.update(requireAdmin(context).id, args._id, args.input)),
    adminDeleteServiceAccount: (_: unknown, args: { _id: string }, context: RequestContext) =>
      accountView(context.services.serviceAccounts.delete(requireAdmin(context).id, args._id)),
    adminIssueServiceAccountToken: (
      _: unknown,
      { serviceAccountId, ...token }: { serviceAccountId: string } & TokenInput,
      context: RequestContext,
    ) =>
      issuedView(context.services.serviceAccounts.issue(requireAdmin(context).id, serviceAccountId, token)),
    adminRotateServiceAccountToken: (
      _: unknown,
      args: { _id: string; expiresInHours?: number | null },
      context: RequestContext,
    ) =>
      issuedView(
        context.services.serviceAccounts.rotate(requireAdmin(context).id, args._id, args.expiresInHours),
      ),
    adminRevokeServiceAccountToken: (_: unknown, args: { _id: string }, context: RequestContext) =>
      context.services.serviceAccounts.revoke(requireAdmin(context).id, args._id),
  },
};
