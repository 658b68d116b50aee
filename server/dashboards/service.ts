// The dashboard writes of spec §8 (create, update with the revision guard, sharing, ACL, ownership,
// delete, SAFE/TRUSTED) and document history. Every write is one transaction; its audit record and
// change notification follow the commit. Who may do what and how a dashboard looks to a caller are
// access.ts; offboarding (§6.6) and diagnostics (§15) have their own files. Callers (GraphQL, the
// gateway, the CLI) only shape input and output.
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
  RevocationReason,
} from '../db/repositories/dashboards.ts';
import type { UserRow } from '../db/repositories/users.ts';
import type { DashboardDocument } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import {
  type Capabilities,
  capabilities,
  type DashboardSnapshot,
  type DashboardView,
  documentOf,
  listedViews,
  project,
  type Visibility,
} from './access.ts';
import type { Change, ChangeBus } from './bus.ts';
import {
  addsTrustedContent,
  DOCUMENT_DEFAULTS,
  DOCUMENT_FIELDS,
  DocumentError,
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

/** Fields given to create or update; a key present with `null` counts as given (§8.5). */
export type DocumentInput = { [K in keyof DashboardDocument]?: unknown };

const EXPECTED_REVISION_REQUIRED =
  'expectedDocumentRevision is required for document updates and must be a positive integer';

const fail = (code: ServiceError['code'], message: string, extensions?: Record<string, unknown>): never => {
  throw new ServiceError(code, message, extensions);
};

/** Share tokens: 24 random bytes, base64url (32 chars). */
const newShareToken = () => randomBytes(24).toString('base64url');

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

  // ---- access (access.ts over this store) ----

  /** §8.1 for a caller and a stored dashboard (share tokens aside). */
  capabilities(
    caller: Principal,
    row: Pick<DashboardRow, 'id' | 'ownerId' | 'visibility'>,
    entry?: Pick<AclRow, 'accessLevel'> | null,
  ): Capabilities {
    return capabilities(this.#store, caller, row, entry);
  }

  /** §8.2: the dashboard as `caller` may see it, capabilities taken after the operation. */
  #project(caller: Principal, row: DashboardRow, caps = this.capabilities(caller, row), acl?: AclRow[]) {
    return project(this.#store, row, caps, acl);
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

  /**
   * After a committed write: its audit record, then (unless `change` is null) its notification for
   * subscribers and the gateway (§9).
   */
  #announce(
    actor: UserRow,
    action: string,
    id: string,
    metadata: Record<string, unknown>,
    change: string | null,
    extra: Partial<DashboardChange> = {},
  ): void {
    this.#deps.audit.record({
      actorUserId: actor.id,
      action,
      targetType: 'dashboard',
      targetId: id,
      metadata,
    });
    if (change !== null) this.#deps.bus.publish({ kind: 'dashboard', dashboardId: id, change, ...extra });
  }

  // ---- reads (§8.3) ----

  get(caller: Principal, id: string): DashboardView {
    const { row, caps } = this.#readable(caller, id);
    return this.#project(caller, row, caps);
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
    return caps.read ? this.#project(caller, row, caps, acl) : null;
  }

  byShareToken(caller: Principal, token: string): DashboardView {
    const row = token ? this.#store.dashboards.byShareToken(token) : undefined;
    if (!row || row.visibility === 'private') return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    return this.#project(caller, row, { ...this.capabilities(caller, row), read: true });
  }

  /** The caller's list, newest first: the hot read of the LAN, decoded lazily (access.ts). */
  list(caller: UserRow): DashboardView[] {
    const { dashboards } = this.#store;
    const rows =
      caller.role === 'admin'
        ? dashboards.listAllRaw()
        : dashboards.listVisibleRaw(caller.id, this.#deps.policy().dashboardPublicListingEnabled);
    return listedViews(this.#store, { kind: 'user', user: caller }, rows);
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
    this.#announce(caller, 'dashboard.created', row.id, { visibility }, null);
    return this.#project({ kind: 'user', user: caller }, row);
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
    this.#announce(user, audit.action, row.id, audit.metadata(written.row.documentRevision), 'document');
    return this.#project(caller, written.row);
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
    if (visibility === row.visibility) return this.#project(caller, row);
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
    this.#announce(
      user,
      audit.action,
      row.id,
      audit.metadata(updated.shareTokenVersion),
      reason === 'visibility_changed' ? 'visibility' : 'share_token',
      { reason },
    );
    return this.#project(caller, updated);
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
      this.#announce(
        user,
        'dashboard.acl.upserted',
        row.id,
        { userId: target.id, accessLevel, previousAccessLevel: previous.before?.accessLevel ?? null },
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
      this.#announce(
        user,
        'dashboard.acl.revoked',
        row.id,
        { userId, accessLevel: removed.accessLevel },
        'acl',
      );
    return this.#projectFresh(caller, row.id);
  }

  transferOwnership(caller: Principal, id: string, newOwnerId: string): DashboardView {
    const { row, user } = this.#withCapability(caller, id, 'delete', NOT_ALLOWED.transfer);
    if (newOwnerId === row.ownerId) return this.#project(caller, row);
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
    this.#announce(
      user,
      'dashboard.ownership.transferred',
      row.id,
      { fromUserId: row.ownerId, toUserId: target.id },
      'owner',
    );
    return this.#projectFresh(caller, row.id);
  }

  /** After an envelope change the caller may have lost access (self-revocation): then NOT_FOUND. */
  #projectFresh(caller: Principal, id: string): DashboardView {
    const row = this.#store.dashboards.byId(id);
    if (!row) return fail('NOT_FOUND', DASHBOARD_NOT_FOUND);
    const caps = this.capabilities(caller, row);
    if (!caps.read) return { ...this.#project(caller, row, caps), acl: [], shareToken: null, user: null };
    return this.#project(caller, row, caps);
  }

  // ---- delete (§8.8) ----

  delete(caller: Principal, id: string): DashboardView {
    const { row, user, caps } = this.#withCapability(caller, id, 'delete', NOT_ALLOWED.delete);
    const view = this.#project(caller, row, caps);
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
    this.#announce(user, 'dashboard.deleted', row.id, { visibility: row.visibility }, 'deleted', {
      deleted: true,
      ...(row.visibility !== 'private' ? { reason: 'dashboard_deleted' as const } : {}),
    });
    return view;
  }
}

type DashboardChange = Extract<Change, { kind: 'dashboard' }>;

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
