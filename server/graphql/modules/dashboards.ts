// Dashboards over GraphQL (spec §8, §9, §15): the SDL and thin resolvers. Who may call at all is in
// the authorisation table; every rule about a dashboard is in server/dashboards/.
import { type Principal, sessionStillHolds } from '../../auth/principal.ts';
import type { DashboardSnapshot, DashboardView } from '../../dashboards/access.ts';
import type { Change } from '../../dashboards/bus.ts';
import { datasourceDiagnostics } from '../../dashboards/diagnostics.ts';
import { eventQueue } from '../../dashboards/event-queue.ts';
import type { UserRow } from '../../db/repositories/users.ts';
import type { RequestContext } from '../context.ts';
import { requireUser } from '../context.ts';
import { badUserInput } from '../errors.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { STORED_ENUMS } from '../stored-enums.ts';

export const typeDefs = /* GraphQL */ `
  enum DashboardAccessLevel {
    VIEWER
    EDITOR
  }

  type DashboardAclEntry {
    userId: ID!
    accessLevel: DashboardAccessLevel!
    grantedBy: ID
    grantedAt: String!
  }

  """
  A dashboard, projected for the caller: shareToken, acl and user (the owner's id) only for callers who
  may manage its sharing.
  """
  type Dashboard {
    _id: ID!
    title: String!
    version: String!
    image: String
    datasources: [Object!]!
    columns: Int!
    width: String!
    panes: [Object!]!
    settings: Object!
    visibility: DashboardVisibility!
    shareToken: String
    shareTokenVersion: Int!
    "Rises by exactly 1 on every accepted document write."
    documentRevision: Int!
    "The owner's id, for callers who may manage sharing; else null."
    user: String
    acl: [DashboardAclEntry!]!
    isOwner: Boolean!
    canEdit: Boolean!
    canManageSharing: Boolean!
    createdAt: String!
    updatedAt: String!
  }

  type DashboardCollaborator {
    userId: ID!
    email: String!
    accessLevel: DashboardAccessLevel!
    isOwner: Boolean!
    grantedBy: ID
    grantedAt: String
  }

  "A kept document: the eight document fields as they were at that revision."
  type DashboardRevision {
    documentRevision: Int!
    createdAt: String!
    authorUserId: ID
    title: String!
    document: Object!
  }

  type DatasourceTypeCount {
    type: String!
    count: Int!
  }

  type DatasourceDiagnostics {
    totalDashboards: Int!
    totalDatasources: Int!
    credentialBoundDatasources: Int!
    externalDashboardDatasources: Int!
    invalidDatasources: Int!
    typeCounts: [DatasourceTypeCount!]!
  }

  input CreateDashboardInput {
    title: String!
    version: String!
    image: String
    datasources: [Object]
    columns: Int
    width: String
    panes: [Object]
    settings: Object
    visibility: DashboardVisibility
  }

  input UpdateDashboardInput {
    title: String
    version: String
    image: String
    datasources: [Object]
    columns: Int
    width: String
    panes: [Object]
    settings: Object
    visibility: DashboardVisibility
    "Required for document updates: the documentRevision the change was made on."
    expectedDocumentRevision: Int
  }

  extend type Query {
    dashboard(_id: ID!): Dashboard
    dashboardByShareToken(shareToken: String!): Dashboard
    "Admins: all; others: owned, shared with them, and PUBLIC ones when listing is enabled. Newest first."
    dashboards: [Dashboard!]!
    "The owner first, then ACL entries by email."
    dashboardCollaborators(_id: ID!): [DashboardCollaborator!]!
    "Newest first, the current revision included; at most 50."
    dashboardRevisions(_id: ID!): [DashboardRevision!]!
    "Admins, or service accounts with DATASOURCE_DIAGNOSTICS_READ."
    adminDatasourceDiagnostics: DatasourceDiagnostics!
  }

  extend type Mutation {
    "A missing dashboard is BAD_USER_INPUT \\"dashboard is required\\"."
    createDashboard(dashboard: CreateDashboardInput): Dashboard!
    "A missing dashboard is an update without fields (BAD_USER_INPUT \\"No fields to update\\")."
    updateDashboard(_id: ID!, dashboard: UpdateDashboardInput): Dashboard!
    deleteDashboard(_id: ID!): Dashboard!
    setDashboardVisibility(_id: ID!, visibility: DashboardVisibility!): Dashboard!
    rotateDashboardShareToken(_id: ID!): Dashboard!
    upsertDashboardAccess(_id: ID!, email: String!, accessLevel: DashboardAccessLevel!): Dashboard!
    revokeDashboardAccess(_id: ID!, userId: ID!): Dashboard!
    transferDashboardOwnership(_id: ID!, newOwnerUserId: ID!): Dashboard!
    restoreDashboardRevision(_id: ID!, documentRevision: Int!, expectedDocumentRevision: Int!): Dashboard!
  }

  type Subscription {
    "Every change after the subscription starts, projected for this subscriber; null (then the end) once it is gone or unreadable."
    dashboard(_id: ID!): Dashboard
  }
`;

const service = (context: RequestContext) => context.services.dashboards;

// One read of the dashboard and of each subscriber's account per change, shared by all its
// subscribers (the bus hands each the same object, synchronously after the commit, so nothing can be
// written between the reads of two subscribers of one change).
interface ChangeReads {
  snapshots: Map<string, DashboardSnapshot | null>;
  users: Map<string, UserRow | undefined>;
}
const reads = new WeakMap<Change, ChangeReads>();

function readsOf(change: Change): ChangeReads {
  let found = reads.get(change);
  if (!found) {
    found = { snapshots: new Map(), users: new Map() };
    reads.set(change, found);
  }
  return found;
}

/**
 * §9: events for one subscriber. Each change of this dashboard (or of the subscriber's account)
 * re-validates the session, re-reads and re-projects for this subscriber; a lost dashboard ends the
 * stream after one null.
 */
function dashboardEvents(context: RequestContext, id: string) {
  const { services } = context;
  const user = requireUser(context);
  // Throws NOT_FOUND before any event when the dashboard is not readable now.
  service(context).get(context.principal, id);
  const current = (read: ChangeReads): Principal | null => {
    let stored: UserRow | undefined;
    if (read.users.has(user.id)) stored = read.users.get(user.id);
    else {
      stored = services.store.users.byId(user.id);
      read.users.set(user.id, stored);
    }
    return sessionStillHolds(stored, user.sessionVersion) ? { kind: 'user', user: stored } : null;
  };
  const queue = eventQueue<DashboardView | null>(() => unsubscribe());
  const unsubscribe = services.bus.subscribe((change: Change) => {
    const relevant =
      (change.kind === 'dashboard' && change.dashboardId === id) ||
      (change.kind === 'user' && change.userId === user.id);
    if (!relevant) return;
    const read = readsOf(change);
    const principal = current(read);
    // A user change reaches subscribers of many dashboards: one snapshot per dashboard.
    let snapshot = read.snapshots.get(id);
    if (snapshot === undefined) {
      snapshot = service(context).snapshot(id);
      read.snapshots.set(id, snapshot);
    }
    const view = principal ? service(context).viewOrNull(principal, id, snapshot) : null;
    queue.push(view);
    if (!view) queue.end();
  });
  return queue.iterator;
}

export const resolvers: Resolvers = {
  DashboardAccessLevel: STORED_ENUMS.DashboardAccessLevel,
  Query: {
    dashboard: (_, args, context) => service(context).get(context.principal, args._id),
    dashboardByShareToken: (_, args, context) =>
      service(context).byShareToken(context.principal, args.shareToken),
    dashboards: (_, __, context) => service(context).list(requireUser(context)),
    dashboardCollaborators: (_, args, context) => service(context).collaborators(context.principal, args._id),
    dashboardRevisions: (_, args, context) => service(context).revisions(context.principal, args._id),
    adminDatasourceDiagnostics: (_, __, context) => datasourceDiagnostics(context.services.store),
  },
  Mutation: {
    createDashboard: (_, args, context) => {
      if (!args.dashboard) throw badUserInput('dashboard is required');
      return service(context).create(requireUser(context), args.dashboard);
    },
    // Without a dashboard there is nothing to update: the service says so after its access checks,
    // which come first (§4's precedence).
    updateDashboard: (_, args, context) =>
      service(context).update(context.principal, args._id, args.dashboard ?? {}),
    deleteDashboard: (_, args, context) => service(context).delete(context.principal, args._id),
    setDashboardVisibility: (_, args, context) =>
      service(context).setVisibility(context.principal, args._id, args.visibility),
    rotateDashboardShareToken: (_, args, context) =>
      service(context).rotateShareToken(context.principal, args._id),
    upsertDashboardAccess: (_, args, context) =>
      service(context).upsertAccess(context.principal, args._id, args.email, args.accessLevel),
    revokeDashboardAccess: (_, args, context) =>
      service(context).revokeAccess(context.principal, args._id, args.userId),
    transferDashboardOwnership: (_, args, context) =>
      service(context).transferOwnership(context.principal, args._id, args.newOwnerUserId),
    restoreDashboardRevision: (_, args, context) =>
      service(context).restoreRevision(
        context.principal,
        args._id,
        args.documentRevision,
        args.expectedDocumentRevision,
      ),
  },
  Subscription: {
    dashboard: {
      subscribe: (_, args, context) => dashboardEvents(context, args._id),
      resolve: (payload: DashboardView | null) => payload,
    },
  },
};
