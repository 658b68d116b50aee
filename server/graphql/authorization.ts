// One authorisation table for every root field (§17). The schema refuses to build when a Query,
// Mutation or Subscription field has no rule, and each rule runs before its resolver. Rules decide
// who may call at all (UNAUTHENTICATED and role/scope FORBIDDEN); what a caller may do with one
// dashboard (read, edit, share, delete) depends on that dashboard and is decided by its service.
import {
  defaultFieldResolver,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { RequestContext } from './context.ts';
import { ADMIN_ROLE_REQUIRED, forbidden, unauthenticated } from './errors.ts';

export type Rule =
  /** Anyone, anonymous and service accounts included. */
  | { kind: 'public' }
  /** A signed-in user of any role; service accounts are anonymous here. */
  | { kind: 'user' }
  /** A signed-in EDITOR or ADMIN; VIEWER → FORBIDDEN "Editor role required". */
  | { kind: 'editor' }
  /** A signed-in ADMIN; others → FORBIDDEN "Admin role required". */
  | { kind: 'admin' }
  /** An ADMIN, or a service account holding `scope` (stored form), else FORBIDDEN. */
  | { kind: 'adminOrScope'; scope: string; scopeName: string };

const PUBLIC: Rule = { kind: 'public' };
const USER: Rule = { kind: 'user' };
const EDITOR: Rule = { kind: 'editor' };
const ADMIN: Rule = { kind: 'admin' };

export const AUTHORIZATION: Record<'Query' | 'Mutation' | 'Subscription', Record<string, Rule>> = {
  Query: {
    me: USER,
    publicAuthPolicy: PUBLIC,
    authPolicy: ADMIN,
    listAllUsers: ADMIN,
    listPendingInvites: ADMIN,
    adminAuditEvents: ADMIN,
    adminRuntimeMetrics: { kind: 'adminOrScope', scope: 'ops:read', scopeName: 'OPS_READ' },
    adminDatasourceDiagnostics: {
      kind: 'adminOrScope',
      scope: 'datasource:diagnostics:read',
      scopeName: 'DATASOURCE_DIAGNOSTICS_READ',
    },
    // Read capability (PUBLIC, owner, ACL, admin) or the share token, decided per dashboard.
    dashboard: PUBLIC,
    dashboardByShareToken: PUBLIC,
    dashboards: USER,
    dashboardCollaborators: USER,
    dashboardRevisions: USER,
    credentialProfiles: EDITOR,
    brokerProfiles: EDITOR,
    adminServiceAccounts: ADMIN,
    adminServiceAccountTokens: ADMIN,
  },
  Mutation: {
    registerUser: PUBLIC,
    authUser: PUBLIC,
    acceptInvite: PUBLIC,
    requestPasswordReset: PUBLIC,
    resetPassword: PUBLIC,
    deleteMyUserAccount: USER,
    adminCreateUser: ADMIN,
    adminUpdateUser: ADMIN,
    adminDeleteUser: ADMIN,
    adminCreateInvite: ADMIN,
    adminRevokeInvite: ADMIN,
    adminIssuePasswordReset: ADMIN,
    setAuthPolicy: ADMIN,
    createDashboard: EDITOR,
    // Capabilities per dashboard: unreadable → NOT_FOUND, readable without it → FORBIDDEN.
    updateDashboard: USER,
    deleteDashboard: USER,
    setDashboardVisibility: USER,
    rotateDashboardShareToken: USER,
    upsertDashboardAccess: USER,
    revokeDashboardAccess: USER,
    transferDashboardOwnership: USER,
    restoreDashboardRevision: USER,
    // Flows and the DATASOURCE_MINT scope are decided by the session-token service (§11).
    mintDatasourceSessionToken: PUBLIC,
    adminCreateCredentialProfile: ADMIN,
    adminUpdateCredentialProfile: ADMIN,
    adminDeleteCredentialProfile: ADMIN,
    adminCreateBrokerProfile: ADMIN,
    adminUpdateBrokerProfile: ADMIN,
    adminDeleteBrokerProfile: ADMIN,
    adminCreateServiceAccount: ADMIN,
    adminUpdateServiceAccount: ADMIN,
    adminDeleteServiceAccount: ADMIN,
    adminIssueServiceAccountToken: ADMIN,
    adminRotateServiceAccountToken: ADMIN,
    adminRevokeServiceAccountToken: ADMIN,
  },
  Subscription: {
    dashboard: USER,
  },
};

const ROOTS = ['Query', 'Mutation', 'Subscription'] as const;

export const EDITOR_ROLE_REQUIRED = 'Editor role required';

/** Throws the §4 error for a caller the rule refuses. */
export function enforce(rule: Rule, context: RequestContext): void {
  if (rule.kind === 'public') return;
  const { principal } = context;
  if (rule.kind === 'adminOrScope' && principal.kind === 'service') {
    if (!principal.scopes.includes(rule.scope))
      throw forbidden(`Service account lacks scope ${rule.scopeName}`);
    return;
  }
  if (principal.kind !== 'user') throw unauthenticated();
  const { role } = principal.user;
  if (rule.kind === 'editor' && role === 'viewer') throw forbidden(EDITOR_ROLE_REQUIRED);
  if ((rule.kind === 'admin' || rule.kind === 'adminOrScope') && role !== 'admin')
    throw forbidden(ADMIN_ROLE_REQUIRED);
}

type RootName = keyof typeof AUTHORIZATION;

// By accessor rather than `isObjectType`: graphql can be loaded twice (ESM and CJS) in one process.
function rootType(schema: GraphQLSchema, name: RootName): GraphQLObjectType | null | undefined {
  if (name === 'Query') return schema.getQueryType();
  if (name === 'Mutation') return schema.getMutationType();
  return schema.getSubscriptionType();
}

/** Root fields of `schema` without a rule in the table, as `Type.field`. */
export function fieldsWithoutRule(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const typeName of ROOTS) {
    const type = rootType(schema, typeName);
    if (!type) continue;
    for (const name of Object.keys(type.getFields()))
      if (!AUTHORIZATION[typeName][name]) missing.push(`${typeName}.${name}`);
  }
  return missing;
}

/** Puts each rule in front of its resolver (and subscription source); refuses unruled fields. */
export function applyAuthorization(schema: GraphQLSchema): GraphQLSchema {
  const missing = fieldsWithoutRule(schema);
  if (missing.length > 0) throw new Error(`No authorisation rule for ${missing.join(', ')}`);
  for (const typeName of ROOTS) {
    const type = rootType(schema, typeName);
    if (!type) continue;
    for (const [name, field] of Object.entries(type.getFields())) {
      const rule = AUTHORIZATION[typeName][name] as Rule;
      if (rule.kind === 'public') continue;
      if (typeName === 'Subscription') {
        const subscribe = field.subscribe as GraphQLFieldResolver<unknown, RequestContext>;
        const guarded: GraphQLFieldResolver<unknown, RequestContext> = (source, args, context, info) => {
          enforce(rule, context);
          return subscribe(source, args, context, info);
        };
        field.subscribe = guarded;
      } else {
        const resolve = (field.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<
          unknown,
          RequestContext
        >;
        const guarded: GraphQLFieldResolver<unknown, RequestContext> = (source, args, context, info) => {
          enforce(rule, context);
          return resolve(source, args, context, info);
        };
        field.resolve = guarded;
      }
    }
  }
  return schema;
}
