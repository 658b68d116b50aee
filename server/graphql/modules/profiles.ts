// Credential and broker profiles over GraphQL (spec §10): SDL and thin resolvers; the rules live in
// server/profiles/. Secrets go in, never out: a profile shows only the shape of its secret.
import type { BrokerProfileInput, BrokerProfileView } from '../../profiles/brokers.ts';
import type {
  CredentialProfileInput,
  CredentialProfileView,
  CredentialType,
} from '../../profiles/credentials.ts';
import { type RequestContext, requireAdmin } from '../context.ts';

export const typeDefs = /* GraphQL */ `
  enum CredentialProfileType {
    NONE
    HEADER
    BEARER
    BASIC
  }

  "How a datasource authenticates upstream. The secret itself is write-only."
  type CredentialProfile {
    _id: ID!
    name: String!
    type: CredentialProfileType!
    description: String!
    allowPublicUse: Boolean!
    "HEADER: { headerName }."
    metadata: Object!
    "{ <key>: \\"***\\" } per stored secret key; null without a secret."
    secretShape: Object
    "The secret was sealed under another CREDENTIAL_ENCRYPTION_KEY and must be entered again."
    secretNeedsReentry: Boolean!
    createdAt: String!
    updatedAt: String!
  }

  input CredentialProfileCreateInput {
    name: String!
    type: CredentialProfileType!
    description: String
    allowPublicUse: Boolean
    metadata: Object
    "NONE: none; HEADER: { headerValue }; BEARER: { token }; BASIC: { username, password }."
    secret: Object
  }

  "Omitted fields stay unchanged; metadata and secret replace the whole object."
  input CredentialProfileUpdateInput {
    name: String
    type: CredentialProfileType
    description: String
    allowPublicUse: Boolean
    metadata: Object
    secret: Object
  }

  enum BrokerProfileProtocol {
    MQTT
  }

  "An MQTT broker datasources may name; its credential profile, if any, is BASIC."
  type BrokerProfile {
    _id: ID!
    name: String!
    protocol: BrokerProfileProtocol!
    description: String!
    "mqtt:// or mqtts://, without credentials."
    brokerUrl: String!
    "{ rejectUnauthorized?, servername?, ca? }."
    tls: Object
    "The BASIC credential profile's id, or null."
    credentialProfileId: String
    allowPublicUse: Boolean!
    "MQTT filters a datasource topic must fall under; empty = all topics."
    topicAllowlist: [String!]!
    createdAt: String!
    updatedAt: String!
  }

  input BrokerProfileCreateInput {
    name: String!
    protocol: BrokerProfileProtocol
    description: String
    brokerUrl: String!
    tls: Object
    credentialProfileId: ID
    allowPublicUse: Boolean
    topicAllowlist: [String!]
  }

  "Omitted fields stay unchanged; null clears tls and credentialProfileId."
  input BrokerProfileUpdateInput {
    name: String
    protocol: BrokerProfileProtocol
    description: String
    brokerUrl: String
    tls: Object
    credentialProfileId: ID
    allowPublicUse: Boolean
    topicAllowlist: [String!]
  }

  extend type Query {
    "Editors and admins; ordered by name."
    credentialProfiles: [CredentialProfile!]!
    "Editors and admins; ordered by name, only of protocol when given."
    brokerProfiles(protocol: BrokerProfileProtocol): [BrokerProfile!]!
  }

  "A short-lived gateway token for one datasource (§11)."
  type DatasourceSessionToken {
    token: String!
    expiresAt: String!
  }

  extend type Mutation {
    "Anyone: the user flow for owners, ACL members and admins, else the public flow (share token or PUBLIC)."
    mintDatasourceSessionToken(dashboardId: ID!, datasourceId: ID!, shareToken: String): DatasourceSessionToken!
    adminCreateCredentialProfile(input: CredentialProfileCreateInput!): CredentialProfile!
    adminUpdateCredentialProfile(_id: ID!, input: CredentialProfileUpdateInput!): CredentialProfile!
    "Returns the deleted profile."
    adminDeleteCredentialProfile(_id: ID!): CredentialProfile!
    adminCreateBrokerProfile(input: BrokerProfileCreateInput!): BrokerProfile!
    adminUpdateBrokerProfile(_id: ID!, input: BrokerProfileUpdateInput!): BrokerProfile!
    "Returns the deleted profile."
    adminDeleteBrokerProfile(_id: ID!): BrokerProfile!
  }
`;

const credentialView = (view: CredentialProfileView) => ({ ...view, _id: view.id });
const brokerView = (view: BrokerProfileView) => ({ ...view, _id: view.id });

export const resolvers = {
  CredentialProfileType: { NONE: 'none', HEADER: 'header', BEARER: 'bearer', BASIC: 'basic' },
  BrokerProfileProtocol: { MQTT: 'mqtt' },
  Query: {
    credentialProfiles: (_: unknown, __: unknown, context: RequestContext) =>
      context.services.credentialProfiles.list().map(credentialView),
    brokerProfiles: (_: unknown, args: { protocol?: 'mqtt' | null }, context: RequestContext) =>
      context.services.brokerProfiles.list(args.protocol).map(brokerView),
  },
  Mutation: {
    mintDatasourceSessionToken: (
      _: unknown,
      args: { dashboardId: string; datasourceId: string; shareToken?: string | null },
      context: RequestContext,
    ) =>
      context.services.sessionTokens.mint({
        caller: context.principal,
        clientIp: context.clientIp,
        ...args,
      }),
    adminCreateCredentialProfile: (
      _: unknown,
      args: { input: CredentialProfileInput & { name: string; type: CredentialType } },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      return credentialView(context.services.credentialProfiles.create(admin.id, args.input));
    },
    adminUpdateCredentialProfile: (
      _: unknown,
      args: { _id: string; input: CredentialProfileInput },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      return credentialView(context.services.credentialProfiles.update(admin.id, args._id, args.input));
    },
    adminDeleteCredentialProfile: (_: unknown, args: { _id: string }, context: RequestContext) => {
      const admin = requireAdmin(context);
      return credentialView(context.services.credentialProfiles.delete(admin.id, args._id));
    },
    adminCreateBrokerProfile: (
      _: unknown,
      args: { input: BrokerProfileInput & { name: string; brokerUrl: string } },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      return brokerView(context.services.brokerProfiles.create(admin.id, args.input));
    },
    adminUpdateBrokerProfile: (
      _: unknown,
      args: { _id: string; input: BrokerProfileInput },
      context: RequestContext,
    ) => {
      const admin = requireAdmin(context);
      return brokerView(context.services.brokerProfiles.update(admin.id, args._id, args.input));
    },
    adminDeleteBrokerProfile: (_: unknown, args: { _id: string }, context: RequestContext) => {
      const admin = requireAdmin(context);
      return brokerView(context.services.brokerProfiles.delete(admin.id, args._id));
    },
  },
};
