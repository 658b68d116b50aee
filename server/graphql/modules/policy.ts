// The auth policy over GraphQL (§7), with the enums other modules share: the SDL and thin
// resolvers; the rules are in server/accounts/policy.ts.
import { authPolicy, publicAuthPolicy, setAuthPolicy } from '../../accounts/policy.ts';
import { requireAdmin } from '../context.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { STORED_ENUMS } from '../stored-enums.ts';
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

export const resolvers: Resolvers = {
  UserRole: STORED_ENUMS.UserRole,
  RegistrationMode: STORED_ENUMS.RegistrationMode,
  ExecutionMode: STORED_ENUMS.ExecutionMode,
  DashboardVisibility: STORED_ENUMS.DashboardVisibility,
  Query: {
    publicAuthPolicy: (_, __, context) => publicAuthPolicy(context.services, callerAddresses(context)),
    authPolicy: (_, __, context) => {
      requireAdmin(context);
      return authPolicy(context.services);
    },
  },
  Mutation: {
    setAuthPolicy: (_, args, context) => setAuthPolicy(context.services, requireAdmin(context), args),
  },
};
