// The dashboard rules of spec §8 (capabilities, projection, create, update with the revision guard,
// sharing, ACL, ownership, delete, SAFE/TRUSTED), document history, diagnostics (§15) and
// offboarding (§6.6). Every write is one transaction; audit records and change notifications follow
// the commit. Callers (GraphQL today, the gateway and CLI later) only shape input and output.
import { randomBytes } from 'node:crypto';
import type { AuditEntry } from '../auth/audit-log.ts';
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from '../auth/email.ts';
import type { Principal } from '../auth/principal.ts';
import { iso, newEntityId } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type {
  AccessLevel,
  AclRow,
  DashboardRow,
  DocumentPatch,
  ListedRow,
  RevocationReason,
} from '../db/repositories/dashboards.ts';
import type { UserRow } from '../db/repositories/users.ts';
import type { DashboardDocument, JsonObject } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import type { ChangeBus } from './bus.ts';
import {
  addsTrustedContent,
  DOCUMENT_DEFAULTS,
  DOCUMENT_FIELDS,
  DocumentError,
  datasourceDetail,
  orderedDocument,
  validateDocument,
} from './document.ts';
import {
  CHANGED_SINCE_LOADED,
  DASHBOARD_NOT_FOUND,
  NO_PUBLISH,
  NOT_ALLOWED,
  OWNER_ACCESS,
  REVISION_NOT_FOUND,
  SAFE_MODE,
  USER_NOT_FOUND,
} from './errors.ts';

export type Visibility = DashboardRow['visibility'];

/** What the dashboard rules need of the auth policy (§7). */
export interface DashboardPolicy {
  editorCanPublish: boolean;
  dashboardDefaultVisibility: Visibility;
  dashboardPublicListingEnabled: boolean;
  executionMode: 'safe' | 'trusted';
}

export interface DashboardServiceDeps {
  store: Store;
  clock: Now;
  audit: { record(entry: AuditEntry): void };
  bus: ChangeBus;
  policy: () => DashboardPolicy;
}

/** Kept per dashboard, the current revision included (§ history). */
export const KEPT_REVISIONS = 50;

export interface Capabilities {
  read: boolean;
  /** Edit = manage sharing. */
  edit: boolean;
  /** Delete = transfer. */
  delete: boolean;
  isOwner: boolean;
}

/** A dashboard projected for one caller (§8.2). */
export interface DashboardView extends DashboardDocument {
  _id: string;
  visibility: Visibility;
  shareToken: string | null;
  shareTokenVersion: number;
  documentRevision: number;
  user: string | null;
  acl: { userId: string; accessLevel: AccessLevel; grantedBy: string | null; grantedAt: string }[];
  isOwner: boolean;
  canEdit: boolean;
  canManageSharing: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface RevisionView {
  documentRevision: number;
  createdAt: string;
  authorUserId: string | null;
  title: string;
  document: DashboardDocument;
}

export interface CollaboratorView {
  userId: string;
  email: string;
  accessLevel: AccessLevel;
  isOwner: boolean;
  grantedBy: string | null;
  grantedAt: string | null;
}

export interface DatasourceDiagnostics {
  totalDashboards: number;
  totalDatasources: number;
  credentialBoundDatasources: number;
  externalDashboardDatasources: number;
  invalidDatasources: number;
  typeCounts: { type: string; count: number }[];
}

/** Fields given to create or update; a key present with `null` counts as given (§8.5). */
export type DocumentInput = { [K in keyof DashboardDocument]?: unknown };

const EXPECTED_REVISION_REQUIRED =
  'expectedDocumentRevision is required for document updates and must be a positive integer';

const fail = (code: ServiceError['code'], message: string, extensions?: Record<string, unknown>): never => {
  throw new ServiceError(code, message, extensions);
};

/** Share tokens: 24 random bytes, base64url (32 chars). */
const newShareToken = () => randomBytes(24).toString('base64url');

function documentOf(row: DashboardRow): DashboardDocument {
  return orderedDocument(row);
}

export class DashboardService {
  readonly #deps: DashboardServiceDeps;

  constructor(deps: DashboardServiceDeps) {
    this.#deps = deps;
  }

  get #store(): Store {
    return this.#deps.store;
  }

  #now(): string {
    return iso(this.#deps.clock());
  }

  // ---- capabilities and projection ----

  /** §8.1 for a caller and a stored dashboard (share tokens aside). */
  capabilities(
    caller: Principal,
    row: Pick<DashboardRow, 'id' | 'ownerId' | 'visibility'>,
    entry?: Pick<AclRow, 'accessLevel'> | null,
  ): Capabilities {
    if (caller.kind !== 'user') {
      const read = row.visibility === 'public';
      return { read, edit: false, delete: false, isOwner: false };
    }
    const { user } = caller;
    const isOwner = row.ownerId === user.id;
    if (user.role === 'admin') return { read: true, edit: true, delete: true, isOwner };
    const acl = entry === undefined ? this.#store.dashboards.aclEntry(row.id, user.id) : entry;
    const editor = user.role === 'editor';
    return {
      read: isOwner || acl != null || row.visibility === 'public',
      edit: editor && (isOwner || acl?.accessLevel === 'editor'),
      delete: editor && isOwner,
      isOwner,
    };
  }

  /** §8.2: the dashboard as `caller` may see it, capabilities taken after the operation. */
  project(
    caller: Principal,
    row: DashboardRow,
    caps = this.capabilities(caller, row),
    acl?: AclRow[],
  ): DashboardView {
    const share = caps.edit;
    const entries = share ? (acl ?? this.#store.dashboards.aclFor(row.id)) : [];
    return {
      _id: row.id,
      ...documentOf(row),
      visibility: row.visibility,
      shareToken: share ? row.shareToken : null,
      shareTokenVersion: row.shareTokenVersion,
      documentRevision: row.documentRevision,
      user: share ? row.ownerId : null,
      acl: entries.map(aclView),
      isOwner: caps.isOwner,
      canEdit: caps.edit,
      canManageSharing: caps.edit,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  #mayPublish(caller: UserRow): boolean {
    return caller.role === 'admin' || this.#deps.policy().editorCanPublish;
  }

  /** The stored dashboard when `caller` may read it, else NOT_FOUND (identical for missing ones). */
  #readable(caller: Principal, id: string): { row: DashboardRow; caps: Capabilities } {
    const row = this.#store.dashboards.byId(id);
    const caps = row ? this.capabilities(caller, row) : null;
    if (!row || !caps?.read) return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    return { row, caps };
  }

  #withCapability(
    caller: Principal,
    id: string,
    capability: 'edit' | 'delete',
    message: string,
  ): { row: DashboardRow; caps: Capabilities; user: UserRow } {
    const found = this.#readable(caller, id);
    if (!found.caps[capability] || caller.kind !== 'user') fail('FORBIDDEN', message);
    return { ...found, user: (caller as { user: UserRow }).user };
  }

  #after(
    audit: AuditEntry[],
    dashboardIds: string[],
    change: string,
    extra: Partial<DashboardChange> = {},
  ): void {
    for (const entry of audit) this.#deps.audit.record(entry);
    for (const dashboardId of dashboardIds)
      this.#deps.bus.publish({ kind: 'dashboard', dashboardId, change, ...extra });
  }

  // ---- reads (§8.3) ----

  get(caller: Principal, id: string): DashboardView {
    const { row, caps } = this.#readable(caller, id);
    return this.project(caller, row, caps);
  }

  /** The stored dashboard and its ACL as one change left them (null once deleted). */
  snapshot(id: string): DashboardSnapshot | null {
    const row = this.#store.dashboards.byId(id);
    return row ? { row, acl: this.#store.dashboards.aclFor(id) } : null;
  }

  /**
   * The dashboard for a subscriber, or null when it is gone or no longer readable (§9). Subscribers
   * of one change share its snapshot: every write is synchronous, so nothing can commit between
   * the reads of two subscribers of the same change anyway.
   */
  viewOrNull(caller: Principal, id: string, snapshot = this.snapshot(id)): DashboardView | null {
    if (!snapshot) return null;
    const { row, acl } = snapshot;
    const entry = caller.kind === 'user' ? (acl.find((e) => e.userId === caller.user.id) ?? null) : null;
    const caps = this.capabilities(caller, row, entry);
    return caps.read ? this.project(caller, row, caps, acl) : null;
  }

  byShareToken(caller: Principal, token: string): DashboardView {
    const row = token ? this.#store.dashboards.byShareToken(token) : undefined;
    if (!row || row.visibility === 'private') return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    return this.project(caller, row, { ...this.capabilities(caller, row), read: true });
  }

  /**
   * The caller's list, newest first. The hot read of the LAN (issue 12's benchmark): one statement
   * gives the visible rows with the caller's own ACL level; the JSON document columns are decoded
   * only when read, and the ACL of the editable rows (the only ones that show it) comes in one more
   * statement the first time any row's `acl` is read.
   */
  list(caller: UserRow): DashboardView[] {
    const principal: Principal = { kind: 'user', user: caller };
    const { dashboards } = this.#store;
    const rows =
      caller.role === 'admin'
        ? dashboards.listAllRaw()
        : dashboards.listVisibleRaw(caller.id, this.#deps.policy().dashboardPublicListingEnabled);
    const caps = rows.map((row) =>
      this.capabilities(principal, row, row.ownAccess ? { accessLevel: row.ownAccess } : null),
    );
    let grouped: Map<string, AclRow[]> | undefined;
    const aclOf = (id: string): AclRow[] => {
      grouped ??= groupAcl(
        dashboards.aclForDashboards(rows.filter((_, i) => caps[i]?.edit).map((row) => row.id)),
      );
      return grouped.get(id) ?? [];
    };
    return rows.map((row, i) => new ListedView(row, caps[i] as Capabilities, aclOf));
  }

  collaborators(caller: Principal, id: string): CollaboratorView[] {
    const { row } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.share);
    const owner = this.#store.users.byId(row.ownerId);
    const entries = this.#store.dashboards.aclWithEmails(id);
    return [
      {
        userId: row.ownerId,
        email: owner?.email ?? '',
        accessLevel: 'editor' as const,
        isOwner: true,
        grantedBy: null,
        grantedAt: null,
      },
      ...entries.map(({ entry, email }) => ({
        userId: entry.userId,
        email,
        accessLevel: entry.accessLevel,
        isOwner: false,
        grantedBy: entry.grantedBy,
        grantedAt: entry.grantedAt,
      })),
    ];
  }

  // ---- create (§8.4) ----

  create(caller: UserRow, input: DocumentInput & { visibility?: Visibility | null }): DashboardView {
    const document = withDefaults(input);
    validated(document);
    const policy = this.#deps.policy();
    if (policy.executionMode === 'safe' && addsTrustedContent(null, document)) fail('FORBIDDEN', SAFE_MODE);
    let visibility: Visibility;
    if (input.visibility) {
      if (input.visibility !== 'private' && !this.#mayPublish(caller)) fail('FORBIDDEN', NO_PUBLISH);
      visibility = input.visibility;
    } else {
      visibility = policy.dashboardDefaultVisibility;
      if (visibility !== 'private' && !this.#mayPublish(caller)) visibility = 'private';
    }
    const now = this.#now();
    const row: DashboardRow = {
      id: newEntityId(this.#deps.clock()),
      ...document,
      visibility,
      shareToken: visibility === 'private' ? null : newShareToken(),
      shareTokenVersion: 1,
      documentRevision: 1,
      ownerId: caller.id,
      createdAt: now,
      updatedAt: now,
    };
    this.#store.transaction(() => {
      this.#store.dashboards.insert(row);
      this.#store.dashboards.addRevision({
        dashboardId: row.id,
        documentRevision: 1,
        authorUserId: caller.id,
        document,
        createdAt: now,
      });
    });
    // No push: nobody can be subscribed to a dashboard that did not exist.
    this.#deps.audit.record({
      actorUserId: caller.id,
      action: 'dashboard.created',
      targetType: 'dashboard',
      targetId: row.id,
      metadata: { visibility },
    });
    return this.project({ kind: 'user', user: caller }, row);
  }

  // ---- update (§8.5) ----

  update(
    caller: Principal,
    id: string,
    input: DocumentInput & { visibility?: Visibility | null; expectedDocumentRevision?: number | null },
  ): DashboardView {
    const { row } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.edit);
    const fields = DOCUMENT_FIELDS.filter((field) => field in input && input[field] !== undefined);
    const hasVisibility = 'visibility' in input && input.visibility !== undefined;
    if (fields.length === 0 && !hasVisibility) fail('BAD_USER_INPUT', 'No fields to update');
    if (hasVisibility && fields.length > 0)
      fail(
        'BAD_USER_INPUT',
        'Change visibility with setDashboardVisibility, not together with document fields',
      );
    if (hasVisibility) {
      if (input.visibility === null) fail('BAD_USER_INPUT', 'visibility must be PRIVATE, LINK or PUBLIC');
      return this.setVisibility(caller, id, input.visibility as Visibility);
    }
    const expected = input.expectedDocumentRevision;
    if (typeof expected !== 'number' || !Number.isInteger(expected) || expected < 1)
      fail('BAD_USER_INPUT', EXPECTED_REVISION_REQUIRED);
    const patch: DocumentInput = {};
    for (const field of fields) patch[field] = input[field];
    if (typeof patch.title === 'string') patch.title = patch.title.trim();
    const merged = { ...documentOf(row), ...patch } as DashboardDocument;
    validated(merged);
    return this.#writeDocument(caller, row, patch as DocumentPatch, merged, expected as number, {
      action: 'dashboard.updated',
      metadata: (revision) => ({ fields, documentRevision: revision }),
    });
  }

  /** Steps 6–10 of §8.5, shared by update and restore. */
  #writeDocument(
    caller: Principal,
    row: DashboardRow,
    patch: DocumentPatch,
    merged: DashboardDocument,
    expected: number,
    audit: { action: string; metadata: (revision: number) => Record<string, unknown> },
  ): DashboardView {
    const user = (caller as { user: UserRow }).user;
    const conflict = (current: number): never =>
      fail('CONFLICT', CHANGED_SINCE_LOADED, { currentRevision: current });
    if (row.documentRevision !== expected) conflict(row.documentRevision);
    if (this.#deps.policy().executionMode === 'safe' && addsTrustedContent(documentOf(row), merged))
      fail('FORBIDDEN', SAFE_MODE);
    const now = this.#now();
    const { dashboards } = this.#store;
    const written = this.#store.transaction(() => {
      if (!dashboards.updateDocumentIfRevision(row.id, expected, patch, now)) {
        const current = dashboards.byId(row.id);
        return current
          ? { conflict: current.documentRevision, row: null }
          : { gone: true as const, row: null };
      }
      const revision = expected + 1;
      dashboards.addRevision({
        dashboardId: row.id,
        documentRevision: revision,
        authorUserId: user.id,
        document: orderedDocument(merged),
        createdAt: now,
      });
      dashboards.pruneRevisions(row.id, revision, KEPT_REVISIONS);
      return { row: dashboards.byId(row.id) as DashboardRow, conflict: 0 };
    });
    if (!written.row)
      return written.conflict ? conflict(written.conflict) : fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    this.#after(
      [
        {
          actorUserId: user.id,
          action: audit.action,
          targetType: 'dashboard',
          targetId: row.id,
          metadata: audit.metadata(written.row.documentRevision),
        },
      ],
      [row.id],
      'document',
    );
    return this.project(caller, written.row);
  }

  // ---- history ----

  revisions(caller: Principal, id: string): RevisionView[] {
    const { row } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.edit);
    const stored = this.#store.dashboards.revisions(id).map((revision) => ({
      documentRevision: revision.documentRevision,
      createdAt: revision.createdAt,
      authorUserId: revision.authorUserId,
      title: revision.document.title,
      document: orderedDocument(revision.document),
    }));
    // Dashboards written before history existed have no row for their current revision.
    if (stored[0]?.documentRevision !== row.documentRevision)
      stored.unshift({
        documentRevision: row.documentRevision,
        createdAt: row.updatedAt,
        authorUserId: null,
        title: row.title,
        document: documentOf(row),
      });
    return stored;
  }

  restoreRevision(caller: Principal, id: string, documentRevision: number, expected: number): DashboardView {
    const { row } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.edit);
    if (!Number.isInteger(expected) || expected < 1) fail('BAD_USER_INPUT', EXPECTED_REVISION_REQUIRED);
    const revision =
      documentRevision === row.documentRevision
        ? { document: documentOf(row) }
        : this.#store.dashboards.revision(id, documentRevision);
    if (!revision) return fail('NOT_FOUND', REVISION_NOT_FOUND);
    const document = orderedDocument(revision.document);
    return this.#writeDocument(caller, row, document, document, expected, {
      action: 'dashboard.revision.restored',
      metadata: (next) => ({ restoredRevision: documentRevision, documentRevision: next }),
    });
  }

  // ---- sharing (§8.6) ----

  setVisibility(caller: Principal, id: string, visibility: Visibility): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.share);
    if (visibility !== 'private' && !this.#mayPublish(user)) fail('FORBIDDEN', NO_PUBLISH);
    if (visibility === row.visibility) return this.project(caller, row);
    const shareToken = visibility === 'private' ? null : (row.shareToken ?? newShareToken());
    return this.#bumpShareTokenVersion(caller, user, row, { visibility, shareToken }, 'visibility_changed', {
      action: 'dashboard.visibility.updated',
      metadata: (version) => ({ from: row.visibility, to: visibility, shareTokenVersion: version }),
    });
  }

  rotateShareToken(caller: Principal, id: string): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.share);
    if (row.visibility === 'private') fail('BAD_USER_INPUT', 'Private dashboards have no share token');
    return this.#bumpShareTokenVersion(
      caller,
      user,
      row,
      { shareToken: newShareToken() },
      'share_token_rotated',
      {
        action: 'dashboard.share_token.rotated',
        metadata: (version) => ({ visibility: row.visibility, shareTokenVersion: version }),
      },
    );
  }

  /** One transaction: the envelope change, `shareTokenVersion` + 1 and its revocation event. */
  #bumpShareTokenVersion(
    caller: Principal,
    user: UserRow,
    row: DashboardRow,
    patch: Partial<DashboardRow>,
    reason: RevocationReason,
    audit: { action: string; metadata: (version: number) => Record<string, unknown> },
  ): DashboardView {
    const now = this.#now();
    const { dashboards } = this.#store;
    const updated = this.#store.transaction(() => {
      const current = dashboards.byId(row.id);
      if (!current) return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
      const version = current.shareTokenVersion + 1;
      dashboards.update(row.id, { ...patch, shareTokenVersion: version, updatedAt: now });
      dashboards.addRevocationEvent(row.id, version, reason, now);
      return dashboards.byId(row.id) as DashboardRow;
    });
    this.#after(
      [
        {
          actorUserId: user.id,
          action: audit.action,
          targetType: 'dashboard',
          targetId: row.id,
          metadata: audit.metadata(updated.shareTokenVersion),
        },
      ],
      [row.id],
      reason === 'visibility_changed' ? 'visibility' : 'share_token',
      { reason },
    );
    return this.project(caller, updated);
  }

  // ---- ACL and ownership (§8.7) ----

  upsertAccess(caller: Principal, id: string, rawEmail: string, accessLevel: AccessLevel): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.share);
    // A malformed address is the caller's mistake, not an unknown user (§1).
    const email = normaliseEmail(rawEmail);
    if (!isValidEmail(email)) fail('BAD_USER_INPUT', INVALID_EMAIL);
    const target = this.#store.users.byEmail(email);
    if (!target?.active) return fail('NOT_FOUND', USER_NOT_FOUND);
    if (target.id === row.ownerId) fail('FORBIDDEN', OWNER_ACCESS);
    const now = this.#now();
    const { dashboards } = this.#store;
    const previous = this.#store.transaction(() => {
      const before = dashboards.aclEntry(row.id, target.id);
      if (before?.accessLevel === accessLevel) return { unchanged: true as const };
      dashboards.upsertAcl({
        dashboardId: row.id,
        userId: target.id,
        accessLevel,
        grantedBy: user.id,
        grantedAt: now,
      });
      return { before };
    });
    if (!('unchanged' in previous))
      this.#after(
        [
          {
            actorUserId: user.id,
            action: 'dashboard.acl.upserted',
            targetType: 'dashboard',
            targetId: row.id,
            metadata: {
              userId: target.id,
              accessLevel,
              previousAccessLevel: previous.before?.accessLevel ?? null,
            },
          },
        ],
        [row.id],
        'acl',
      );
    return this.#projectFresh(caller, row.id);
  }

  revokeAccess(caller: Principal, id: string, userId: string): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'edit', NOT_ALLOWED.share);
    if (userId === row.ownerId) fail('FORBIDDEN', OWNER_ACCESS);
    const { dashboards } = this.#store;
    const removed = this.#store.transaction(() => {
      const before = dashboards.aclEntry(row.id, userId);
      return before && dashboards.deleteAcl(row.id, userId) ? before : null;
    });
    if (removed)
      this.#after(
        [
          {
            actorUserId: user.id,
            action: 'dashboard.acl.revoked',
            targetType: 'dashboard',
            targetId: row.id,
            metadata: { userId, accessLevel: removed.accessLevel },
          },
        ],
        [row.id],
        'acl',
      );
    return this.#projectFresh(caller, row.id);
  }

  transferOwnership(caller: Principal, id: string, newOwnerId: string): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'delete', NOT_ALLOWED.transfer);
    if (newOwnerId === row.ownerId) return this.project(caller, row);
    const target = this.#store.users.byId(newOwnerId);
    if (!target?.active) return fail('NOT_FOUND', USER_NOT_FOUND);
    if (target.role === 'viewer') fail('BAD_USER_INPUT', 'New owner must be an editor or admin');
    const now = this.#now();
    const { dashboards } = this.#store;
    this.#store.transaction(() => {
      dashboards.update(row.id, { ownerId: target.id, updatedAt: now });
      dashboards.deleteAcl(row.id, target.id);
      dashboards.upsertAcl({
        dashboardId: row.id,
        userId: row.ownerId,
        accessLevel: 'editor',
        grantedBy: user.id,
        grantedAt: now,
      });
    });
    this.#after(
      [
        {
          actorUserId: user.id,
          action: 'dashboard.ownership.transferred',
          targetType: 'dashboard',
          targetId: row.id,
          metadata: { fromUserId: row.ownerId, toUserId: target.id },
        },
      ],
      [row.id],
      'owner',
    );
    return this.#projectFresh(caller, row.id);
  }

  /** After an envelope change the caller may have lost access (self-revocation): then NOT_FOUND. */
  #projectFresh(caller: Principal, id: string): DashboardView {
    const row = this.#store.dashboards.byId(id);
    if (!row) return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    const caps = this.capabilities(caller, row);
    if (!caps.read) return { ...this.project(caller, row, caps), acl: [], shareToken: null, user: null };
    return this.project(caller, row, caps);
  }

  // ---- delete (§8.8) ----

  delete(caller: Principal, id: string): DashboardView {
    const { row, user, caps } = this.#withCapability(caller, id, 'delete', NOT_ALLOWED.delete);
    const view = this.project(caller, row, caps);
    this.#store.transaction(() => {
      if (row.visibility !== 'private')
        this.#store.dashboards.addRevocationEvent(
          row.id,
          row.shareTokenVersion + 1,
          'dashboard_deleted',
          this.#now(),
        );
      this.#store.dashboards.delete(row.id);
    });
    this.#after(
      [
        {
          actorUserId: user.id,
          action: 'dashboard.deleted',
          targetType: 'dashboard',
          targetId: row.id,
          metadata: { visibility: row.visibility },
        },
      ],
      [row.id],
      'deleted',
      { deleted: true, ...(row.visibility !== 'private' ? { reason: 'dashboard_deleted' as const } : {}) },
    );
    return view;
  }

  // ---- offboarding (§6.6) ----

  /**
   * Inside the caller's transaction (the user's deletion): the successor takes over every dashboard
   * the user owns (shared ones become private, their share tokens revoked) and the user's ACL entries
   * go. Returns what `afterOffboarding` audits and announces once the transaction has committed.
   */
  offboardInTransaction(userId: string, successorId: string): Offboarding {
    const { dashboards } = this.#store;
    const now = this.#now();
    const reassigned: Offboarding['reassigned'] = [];
    for (const dashboard of dashboards.ownedBy(userId)) {
      dashboards.deleteAcl(dashboard.id, successorId);
      if (dashboard.visibility === 'private') {
        dashboards.update(dashboard.id, { ownerId: successorId, updatedAt: now });
      } else {
        const version = dashboard.shareTokenVersion + 1;
        dashboards.update(dashboard.id, {
          ownerId: successorId,
          visibility: 'private',
          shareToken: null,
          shareTokenVersion: version,
          updatedAt: now,
        });
        dashboards.addRevocationEvent(dashboard.id, version, 'owner_offboarded', now);
      }
      reassigned.push({ dashboard, toUserId: successorId });
    }
    // Deleted here rather than by the foreign key's cascade, so that each can be audited.
    const aclRevoked = dashboards.aclOf(userId);
    for (const entry of aclRevoked) dashboards.deleteAcl(entry.dashboardId, userId);
    return { userId, reassigned, aclRevoked };
  }

  afterOffboarding(actorUserId: string, result: Offboarding): void {
    const { userId } = result;
    const audit: AuditEntry[] = [
      ...result.reassigned.map(({ dashboard, toUserId }) => ({
        actorUserId,
        action: 'dashboard.ownership.reassigned_for_user_offboarding',
        targetType: 'dashboard' as const,
        targetId: dashboard.id,
        metadata: {
          fromUserId: userId,
          toUserId,
          previousVisibility: dashboard.visibility,
          forcedPrivate: true,
        },
      })),
      ...result.aclRevoked.map((entry) => ({
        actorUserId,
        action: 'dashboard.acl.revoked_for_user_offboarding',
        targetType: 'dashboard' as const,
        targetId: entry.dashboardId,
        metadata: { userId, accessLevel: entry.accessLevel },
      })),
    ];
    for (const entry of audit) this.#deps.audit.record(entry);
    for (const { dashboard } of result.reassigned)
      this.#deps.bus.publish({
        kind: 'dashboard',
        dashboardId: dashboard.id,
        change: 'owner',
        ...(dashboard.visibility !== 'private' ? { reason: 'owner_offboarded' as const } : {}),
      });
    for (const entry of result.aclRevoked)
      this.#deps.bus.publish({ kind: 'dashboard', dashboardId: entry.dashboardId, change: 'acl' });
    this.#deps.bus.publish({ kind: 'user', userId, change: 'deleted' });
  }

  // ---- diagnostics (§15) ----

  diagnostics(): DatasourceDiagnostics {
    const { dashboards } = this.#store;
    const profiles = dashboards.profileIds();
    const counts = new Map<string, number>();
    let totalDashboards = 0;
    let totalDatasources = 0;
    let credentialBoundDatasources = 0;
    let externalDashboardDatasources = 0;
    let invalidDatasources = 0;
    for (const row of dashboards.listAll()) {
      totalDashboards += 1;
      for (const entry of row.datasources) {
        totalDatasources += 1;
        const type = typeof entry.type === 'string' ? entry.type : 'unknown';
        counts.set(type, (counts.get(type) ?? 0) + 1);
        const settings = (entry.settings ?? {}) as JsonObject;
        const credential = settings.credentialProfileId;
        if (typeof credential === 'string' && credential !== '') credentialBoundDatasources += 1;
        if (['http', 'sse', 'websocket', 'mqtt'].includes(type)) externalDashboardDatasources += 1;
        const broker = settings.brokerProfileId;
        const invalid =
          datasourceDetail(entry) !== null ||
          (typeof credential === 'string' && credential !== '' && !profiles.credential.has(credential)) ||
          (type === 'mqtt' && typeof broker === 'string' && !profiles.broker.has(broker));
        if (invalid) invalidDatasources += 1;
      }
    }
    const typeCounts = [...counts]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    return {
      totalDashboards,
      totalDatasources,
      credentialBoundDatasources,
      externalDashboardDatasources,
      invalidDatasources,
      typeCounts,
    };
  }
}

type DashboardChange = Extract<import('./bus.ts').Change, { kind: 'dashboard' }>;

export interface DashboardSnapshot {
  row: DashboardRow;
  acl: AclRow[];
}

export interface Offboarding {
  userId: string;
  reassigned: { dashboard: DashboardRow; toUserId: string }[];
  aclRevoked: AclRow[];
}

function aclView(entry: AclRow): DashboardView['acl'][number] {
  return {
    userId: entry.userId,
    accessLevel: entry.accessLevel,
    grantedBy: entry.grantedBy,
    grantedAt: entry.grantedAt,
  };
}

/**
 * `project` for a listed row: the same fields, but the JSON document fields are decoded and the ACL
 * read on first access (GraphQL reads only the selected fields), then kept. A class, so that the 300
 * rows of a list share their accessors; `toJSON` gives the same JSON as a projected view.
 */
class ListedView {
  readonly _id: string;
  readonly title: string;
  readonly version: string;
  readonly image: string | null;
  readonly columns: number;
  readonly width: string;
  readonly visibility: Visibility;
  readonly shareToken: string | null;
  readonly shareTokenVersion: number;
  readonly documentRevision: number;
  readonly user: string | null;
  readonly isOwner: boolean;
  readonly canEdit: boolean;
  readonly canManageSharing: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly #row: ListedRow;
  readonly #aclOf: (id: string) => AclRow[];
  #datasources: JsonObject[] | undefined;
  #panes: JsonObject[] | undefined;
  #settings: JsonObject | undefined;
  #acl: DashboardView['acl'] | undefined;

  constructor(row: ListedRow, caps: Capabilities, aclOf: (id: string) => AclRow[]) {
    const share = caps.edit;
    this._id = row.id;
    this.title = row.title;
    this.version = row.version;
    this.image = row.image;
    this.columns = row.columns;
    this.width = row.width;
    this.visibility = row.visibility;
    this.shareToken = share ? row.shareToken : null;
    this.shareTokenVersion = row.shareTokenVersion;
    this.documentRevision = row.documentRevision;
    this.user = share ? row.ownerId : null;
    this.isOwner = caps.isOwner;
    this.canEdit = share;
    this.canManageSharing = share;
    this.createdAt = row.createdAt;
    this.updatedAt = row.updatedAt;
    this.#row = row;
    this.#aclOf = aclOf;
  }

  get datasources(): JsonObject[] {
    this.#datasources ??= JSON.parse(this.#row.datasourcesJson) as JsonObject[];
    return this.#datasources;
  }

  get panes(): JsonObject[] {
    this.#panes ??= JSON.parse(this.#row.panesJson) as JsonObject[];
    return this.#panes;
  }

  get settings(): JsonObject {
    this.#settings ??= JSON.parse(this.#row.settingsJson) as JsonObject;
    return this.#settings;
  }

  get acl(): DashboardView['acl'] {
    this.#acl ??= this.canEdit ? this.#aclOf(this._id).map(aclView) : [];
    return this.#acl;
  }

  toJSON(): DashboardView {
    const { datasources, panes, settings, acl } = this;
    return {
      _id: this._id,
      title: this.title,
      version: this.version,
      image: this.image,
      datasources,
      columns: this.columns,
      width: this.width,
      panes,
      settings,
      visibility: this.visibility,
      shareToken: this.shareToken,
      shareTokenVersion: this.shareTokenVersion,
      documentRevision: this.documentRevision,
      user: this.user,
      acl,
      isOwner: this.isOwner,
      canEdit: this.canEdit,
      canManageSharing: this.canManageSharing,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
  }
}

function groupAcl(entries: AclRow[]): Map<string, AclRow[]> {
  const grouped = new Map<string, AclRow[]>();
  for (const entry of entries) {
    const list = grouped.get(entry.dashboardId);
    if (list) list.push(entry);
    else grouped.set(entry.dashboardId, [entry]);
  }
  return grouped;
}

/** The eight document fields with create defaults filled in, `title` trimmed. */
function withDefaults(input: DocumentInput): DashboardDocument {
  const pick = <K extends keyof DashboardDocument>(key: K): unknown =>
    input[key] === undefined ? (DOCUMENT_DEFAULTS as Record<string, unknown>)[key] : input[key];
  const title = pick('title');
  return {
    title: typeof title === 'string' ? title.trim() : title,
    version: pick('version'),
    image: input.image === undefined ? null : input.image,
    datasources: pick('datasources'),
    columns: pick('columns'),
    width: pick('width'),
    panes: pick('panes'),
    settings: pick('settings'),
  } as DashboardDocument;
}

/** BAD_USER_INPUT with the document's first failure. */
function validated(document: DashboardDocument): void {
  try {
    validateDocument(document as unknown as Record<(typeof DOCUMENT_FIELDS)[number], unknown>);
  } catch (error) {
    if (error instanceof DocumentError) fail('BAD_USER_INPUT', error.message);
    throw error;
  }
}
