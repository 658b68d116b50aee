import type { Database as Sqlite, Statement } from 'better-sqlite3';
import { and, asc, count, desc, eq, gt, gte, lt, lte, max, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import {
  brokerProfiles,
  credentialProfiles,
  type DashboardDocument,
  dashboardAcl,
  dashboardRevisions,
  dashboards,
  shareTokenRevocationEvents,
  users,
} from '../schema.ts';

export type DashboardRow = typeof dashboards.$inferSelect;
export type AclRow = typeof dashboardAcl.$inferSelect;
export type RevisionRow = typeof dashboardRevisions.$inferSelect;
export type RevocationEventRow = typeof shareTokenRevocationEvents.$inferSelect;
export type RevocationReason = RevocationEventRow['reason'];
export type AccessLevel = AclRow['accessLevel'];
export type DocumentPatch = Partial<DashboardDocument>;

/**
 * A dashboard as the list reads it: the envelope decoded, the three JSON document columns still as
 * their stored text (decoded only if the caller asks for them), and the listing user's own ACL level.
 */
export interface ListedRow {
  id: string;
  title: string;
  version: string;
  image: string | null;
  datasourcesJson: string;
  columns: number;
  width: string;
  panesJson: string;
  settingsJson: string;
  visibility: DashboardRow['visibility'];
  shareToken: string | null;
  shareTokenVersion: number;
  documentRevision: number;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
  /** The listing user's ACL entry's level; null without one (and always for `listAllRaw`). */
  ownAccess: AccessLevel | null;
}

// Column order of ListedRow (raw statements return arrays: no per-row key objects from SQLite).
const LISTED_COLUMNS = `d.id, d.title, d.version, d.image, d.datasources, d.columns, d.width, d.panes, d.settings,
  d.visibility, d.share_token, d.share_token_version, d.document_revision, d.owner_id, d.created_at, d.updated_at`;
const NEWEST_FIRST = 'ORDER BY d.updated_at DESC, d.id DESC';

const listedRow = (r: unknown[], ownAccess: AccessLevel | null): ListedRow => ({
  id: r[0] as string,
  title: r[1] as string,
  version: r[2] as string,
  image: r[3] as string | null,
  datasourcesJson: r[4] as string,
  columns: r[5] as number,
  width: r[6] as string,
  panesJson: r[7] as string,
  settingsJson: r[8] as string,
  visibility: r[9] as DashboardRow['visibility'],
  shareToken: r[10] as string | null,
  shareTokenVersion: r[11] as number,
  documentRevision: r[12] as number,
  ownerId: r[13] as string,
  createdAt: r[14] as string,
  updatedAt: r[15] as string,
  ownAccess,
});

/** Dashboards, their ACL, document revisions and share-token revocation events. */
export class DashboardsRepository {
  readonly #db: Db;
  readonly #byId;
  readonly #listAllRaw: Statement;
  readonly #listVisibleRaw: Statement;
  readonly #aclOfDashboards: Statement;
  // Every single-dashboard read and every subscription check its caller's entry: prepared once.
  readonly #aclFor;
  readonly #aclEntry;

  /** `sqlite` is the connection under `db`: the list's statements are raw (see ListedRow). */
  constructor(db: Db, sqlite: Sqlite) {
    this.#db = db;
    this.#byId = db
      .select()
      .from(dashboards)
      .where(eq(dashboards.id, sql.placeholder('id')))
      .prepare();
    this.#aclFor = db
      .select()
      .from(dashboardAcl)
      .where(eq(dashboardAcl.dashboardId, sql.placeholder('dashboardId')))
      .orderBy(asc(dashboardAcl.grantedAt), asc(dashboardAcl.userId))
      .prepare();
    this.#aclEntry = db
      .select()
      .from(dashboardAcl)
      .where(
        and(
          eq(dashboardAcl.dashboardId, sql.placeholder('dashboardId')),
          eq(dashboardAcl.userId, sql.placeholder('userId')),
        ),
      )
      .prepare();
    this.#listAllRaw = sqlite.prepare(`SELECT ${LISTED_COLUMNS} FROM dashboards d ${NEWEST_FIRST}`).raw();
    // One statement for visibility: the ids owned, shared with the user (with its ACL level) or PUBLIC
    // when listing is enabled, each found through its index, then those rows.
    this.#listVisibleRaw = sqlite
      .prepare(
        `SELECT ${LISTED_COLUMNS}, v.access_level FROM (
           SELECT id, max(access_level) AS access_level FROM (
             SELECT dashboard_id AS id, access_level FROM dashboard_acl WHERE user_id = @user
             UNION ALL SELECT id, NULL FROM dashboards WHERE owner_id = @user
             UNION ALL SELECT id, NULL FROM dashboards WHERE @withPublic = 1 AND visibility = 'public'
           ) GROUP BY id
         ) v JOIN dashboards d ON d.id = v.id
         ${NEWEST_FIRST}`,
      )
      .raw();
    // The entries of a JSON array of dashboard ids, oldest grant first (one statement for any count).
    this.#aclOfDashboards = sqlite
      .prepare(
        `SELECT dashboard_id, user_id, access_level, granted_by, granted_at FROM dashboard_acl
         WHERE dashboard_id IN (SELECT value FROM json_each(?))
         ORDER BY granted_at ASC, user_id ASC`,
      )
      .raw();
  }

  /** Every dashboard for the list, newest `updatedAt` first, then id (JSON columns left as text). */
  listAllRaw(): ListedRow[] {
    return (this.#listAllRaw.all() as unknown[][]).map((r) => listedRow(r, null));
  }

  /** Owned ∪ ACL ∪ (PUBLIC when `withPublic`) for the list, newest `updatedAt` first, then id. */
  listVisibleRaw(userId: string, withPublic: boolean): ListedRow[] {
    const rows = this.#listVisibleRaw.all({ user: userId, withPublic: withPublic ? 1 : 0 }) as unknown[][];
    return rows.map((r) => listedRow(r, (r[16] as AccessLevel | null) ?? null));
  }

  byId(id: string): DashboardRow | undefined {
    return this.#byId.get({ id });
  }

  byShareToken(token: string): DashboardRow | undefined {
    return this.#db.select().from(dashboards).where(eq(dashboards.shareToken, token)).get();
  }

  insert(row: DashboardRow): void {
    this.#db.insert(dashboards).values(row).run();
  }

  /** Newest `updatedAt` first, then id. */
  listAll(): DashboardRow[] {
    return this.#db.select().from(dashboards).orderBy(desc(dashboards.updatedAt), desc(dashboards.id)).all();
  }

  ownedBy(userId: string): DashboardRow[] {
    return this.#db.select().from(dashboards).where(eq(dashboards.ownerId, userId)).all();
  }

  update(id: string, patch: Partial<Omit<DashboardRow, 'id'>>): void {
    this.#db.update(dashboards).set(patch).where(eq(dashboards.id, id)).run();
  }

  /**
   * The revision guard (§8.5 step 8): one conditional UPDATE that writes the document fields only if
   * the stored revision is still `expected`. True when it did.
   */
  updateDocumentIfRevision(id: string, expected: number, patch: DocumentPatch, nowIso: string): boolean {
    const result = this.#db
      .update(dashboards)
      .set({ ...patch, documentRevision: sql`${dashboards.documentRevision} + 1`, updatedAt: nowIso })
      .where(and(eq(dashboards.id, id), eq(dashboards.documentRevision, expected)))
      .run();
    return result.changes === 1;
  }

  delete(id: string): void {
    this.#db.delete(dashboards).where(eq(dashboards.id, id)).run();
  }

  count(): number {
    return this.#db.select({ n: count() }).from(dashboards).get()?.n ?? 0;
  }

  /** Ids of the stored credential and broker profiles (diagnostics check datasource references). */
  profileIds(): { credential: Set<string>; broker: Set<string> } {
    const credential = this.#db.select({ id: credentialProfiles.id }).from(credentialProfiles).all();
    const broker = this.#db.select({ id: brokerProfiles.id }).from(brokerProfiles).all();
    return { credential: new Set(credential.map((r) => r.id)), broker: new Set(broker.map((r) => r.id)) };
  }

  // ---- ACL ----

  aclOf(userId: string): AclRow[] {
    return this.#db.select().from(dashboardAcl).where(eq(dashboardAcl.userId, userId)).all();
  }

  /** The entries of many dashboards at once (one statement for any count), oldest grant first. */
  aclForDashboards(dashboardIds: string[]): AclRow[] {
    if (dashboardIds.length === 0) return [];
    return (this.#aclOfDashboards.all(JSON.stringify(dashboardIds)) as unknown[][]).map((r) => ({
      dashboardId: r[0] as string,
      userId: r[1] as string,
      accessLevel: r[2] as AccessLevel,
      grantedBy: r[3] as string | null,
      grantedAt: r[4] as string,
    }));
  }

  /** A dashboard's entries, oldest grant first (then user id). */
  aclFor(dashboardId: string): AclRow[] {
    return this.#aclFor.all({ dashboardId });
  }

  aclEntry(dashboardId: string, userId: string): AclRow | undefined {
    return this.#aclEntry.get({ dashboardId, userId });
  }

  /** Collaborators with their emails, ordered by email. */
  aclWithEmails(dashboardId: string): { entry: AclRow; email: string }[] {
    return this.#db
      .select({ entry: dashboardAcl, email: users.email })
      .from(dashboardAcl)
      .innerJoin(users, eq(users.id, dashboardAcl.userId))
      .where(eq(dashboardAcl.dashboardId, dashboardId))
      .orderBy(asc(users.email))
      .all();
  }

  /** One atomic upsert on `(dashboard_id, user_id)`. */
  upsertAcl(entry: AclRow): void {
    this.#db
      .insert(dashboardAcl)
      .values(entry)
      .onConflictDoUpdate({
        target: [dashboardAcl.dashboardId, dashboardAcl.userId],
        set: { accessLevel: entry.accessLevel, grantedBy: entry.grantedBy, grantedAt: entry.grantedAt },
      })
      .run();
  }

  /** One DELETE; true when a row went. */
  deleteAcl(dashboardId: string, userId: string): boolean {
    return (
      this.#db
        .delete(dashboardAcl)
        .where(and(eq(dashboardAcl.dashboardId, dashboardId), eq(dashboardAcl.userId, userId)))
        .run().changes > 0
    );
  }

  // ---- revocation events (§13.3) ----

  addRevocationEvent(
    dashboardId: string,
    shareTokenVersion: number,
    reason: RevocationReason,
    nowIso: string,
  ): void {
    this.#db
      .insert(shareTokenRevocationEvents)
      .values({ dashboardId, shareTokenVersion, reason, revokedAt: nowIso, createdAt: nowIso })
      .run();
  }

  revocationEventsOf(dashboardId: string): RevocationEventRow[] {
    return this.#db
      .select()
      .from(shareTokenRevocationEvents)
      .where(eq(shareTokenRevocationEvents.dashboardId, dashboardId))
      .orderBy(asc(shareTokenRevocationEvents.id))
      .all();
  }

  /** The feed of §13.3: events after `afterId` created at or after `sinceIso`, ascending, at most `limit`. */
  revocationEventsAfter(afterId: number, sinceIso: string, limit: number): RevocationEventRow[] {
    return this.#db
      .select()
      .from(shareTokenRevocationEvents)
      .where(
        and(gt(shareTokenRevocationEvents.id, afterId), gte(shareTokenRevocationEvents.createdAt, sinceIso)),
      )
      .orderBy(asc(shareTokenRevocationEvents.id))
      .limit(limit)
      .all();
  }

  /** The highest event id ever written (0 when there is none). */
  lastRevocationEventId(): number {
    const row = this.#db
      .select({ last: max(shareTokenRevocationEvents.id) })
      .from(shareTokenRevocationEvents)
      .get();
    return row?.last ?? 0;
  }

  /** Retention (§13.3): drops events created before `beforeIso`; returns how many. */
  pruneRevocationEvents(beforeIso: string): number {
    return this.#db
      .delete(shareTokenRevocationEvents)
      .where(lt(shareTokenRevocationEvents.createdAt, beforeIso))
      .run().changes;
  }

  // ---- document history ----

  addRevision(row: RevisionRow): void {
    this.#db.insert(dashboardRevisions).values(row).run();
  }

  /** Keeps the revisions above `current - keep`: the newest `keep`, the current one included. */
  pruneRevisions(dashboardId: string, current: number, keep: number): void {
    this.#db
      .delete(dashboardRevisions)
      .where(
        and(
          eq(dashboardRevisions.dashboardId, dashboardId),
          lte(dashboardRevisions.documentRevision, current - keep),
        ),
      )
      .run();
  }

  /** Newest first. */
  revisions(dashboardId: string): RevisionRow[] {
    return this.#db
      .select()
      .from(dashboardRevisions)
      .where(eq(dashboardRevisions.dashboardId, dashboardId))
      .orderBy(desc(dashboardRevisions.documentRevision))
      .all();
  }

  revision(dashboardId: string, documentRevision: number): RevisionRow | undefined {
    return this.#db
      .select()
      .from(dashboardRevisions)
      .where(
        and(
          eq(dashboardRevisions.dashboardId, dashboardId),
          eq(dashboardRevisions.documentRevision, documentRevision),
        ),
      )
      .get();
  }
}
