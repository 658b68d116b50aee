// Credential and broker profiles over GraphQL (spec §10): SDL and thin resolvers; the rules live in
// server/profiles/. Secrets go in, never out: a profile shows only the shape of its secret.
import { requireAdmin } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { STORED_ENUMS } from '../stored-enums.ts';

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

export const resolvers: Resolvers = {
  CredentialProfileType: STORED_ENUMS.CredentialProfileType,
  BrokerProfileProtocol: STORED_ENUMS.BrokerProfileProtocol,
  CredentialProfile: { _id: (view) => view.id },
  BrokerProfile: { _id: (view) => view.id },
  Query: {
    credentialProfiles: (_, __, context) => context.services.credentialProfiles.list(),
    brokerProfiles: (_, args, context) => context.services.brokerProfiles.list(args.protocol),
  },
  Mutation: {
    mintDatasourceSessionToken: (_, args, context) =>
      context.services.sessionTokens.mint({
        caller: context.principal,
        clientIp: context.clientIp,
        ...args,
      }),
    adminCreateCredentialProfile: (_, args, context) =>
      context.services.credentialProfiles.create(requireAdmin(context).id, args.input),
    adminUpdateCredentialProfile: (_, args, context) =>
      context.services.credentialProfiles.update(requireAdmin(context).id, args._id, args.input),
    adminDeleteCredentialProfile: (_, args, context) =>
      context.services.credentialProfiles.delete(requireAdmin(context).id, args._id),
    adminCreateBrokerProfile: (_, args, context) =>
      context.services.brokerProfiles.create(requireAdmin(context).id, args.input),
    adminUpdateBrokerProfile: (_, args, context) =>
      context.services.brokerProfiles.update(requireAdmin(context).id, args._id, args.input),
    adminDeleteBrokerProfile: (_, args, context) =>
      context.services.brokerProfiles.delete(requireAdmin(context).id, args._id),
  },
};
