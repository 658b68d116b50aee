// The auth policy over GraphQL (§7), with the enums other modules share: the SDL and thin
// resolvers; the rules are in server/accounts/policy.ts.
import {
  type AuthPolicy,
  authPolicy,
  type PolicyUpdate,
  publicAuthPolicy,
  setAuthPolicy,
} from '../../accounts/policy.ts';
import { type RequestContext, requireAdmin } from '../context.ts';
import { callerAddresses } from './accounts.ts';

export const typeDefs = /* GraphQL */ `
  enum UserRole {
    VIEWER
    EDITOR
    ADMIN
  }

  enum RegistrationMode {
    DISABLED
    INVITE
    OPEN
  }

  enum ExecutionMode {
    SAFE
    TRUSTED
  }

  enum DashboardVisibility {
    PRIVATE
    LINK
    PUBLIC
  }

  "The auth policy (§7); none of its fields is secret."
  type AuthPolicy {
    registrationMode: RegistrationMode!
    registrationDefaultRole: UserRole!
    editorCanPublish: Boolean!
    dashboardDefaultVisibility: DashboardVisibility!
    dashboardPublicListingEnabled: Boolean!
    executionMode: ExecutionMode!
    policyEditLock: Boolean!
  }

  extend type Query {
    "For sign-in and registration screens; anyone may read it."
    publicAuthPolicy: AuthPolicy!
    "Admin only."
    authPolicy: AuthPolicy!
  }

  extend type Mutation {
    "Admin only; omitted fields stay unchanged."
    setAuthPolicy(
      registrationMode: RegistrationMode
      registrationDefaultRole: UserRole
      editorCanPublish: Boolean
      dashboardDefaultVisibility: DashboardVisibility
      dashboardPublicListingEnabled: Boolean
      executionMode: ExecutionMode
    ): AuthPolicy!
  }
`;

export const resolvers = {
  UserRole: { VIEWER: 'viewer', EDITOR: 'editor', ADMIN: 'admin' },
  RegistrationMode: { DISABLED: 'disabled', INVITE: 'invite', OPEN: 'open' },
  ExecutionMode: { SAFE: 'safe', TRUSTED: 'trusted' },
  DashboardVisibility: { PRIVATE: 'private', LINK: 'link', PUBLIC: 'public' },
  Query: {
    publicAuthPolicy: (_: unknown, __: unknown, context: RequestContext): AuthPolicy =>
      publicAuthPolicy(context.services, callerAddresses(context)),
    authPolicy: (_: unknown, __: unknown, context: RequestContext): AuthPolicy => {
      requireAdmin(context);
      return authPolicy(context.services);
    },
  },
  Mutation: {
    setAuthPolicy: (_: unknown, args: PolicyUpdate, context: RequestContext): AuthPolicy =>
      setAuthPolicy(context.services, requireAdmin(context), args),
  },
};
