import { and, eq } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { dashboardAcl, dashboards, shareTokenRevocationEvents } from '../schema.ts';

export type DashboardRow = typeof dashboards.$inferSelect;
export type AclRow = typeof dashboardAcl.$inferSelect;

/** The dashboard operations user offboarding (§6.6) needs; the dashboards issue extends this. */
export class DashboardsRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  ownedBy(userId: string): DashboardRow[] {
    return this.#db.select().from(dashboards).where(eq(dashboards.ownerId, userId)).all();
  }

  aclOf(userId: string): AclRow[] {
    return this.#db.select().from(dashboardAcl).where(eq(dashboardAcl.userId, userId)).all();
  }

  update(id: string, patch: Partial<Omit<DashboardRow, 'id'>>): void {
    this.#db.update(dashboards).set(patch).where(eq(dashboards.id, id)).run();
  }

  deleteAcl(dashboardId: string, userId: string): void {
    this.#db
      .delete(dashboardAcl)
      .where(and(eq(dashboardAcl.dashboardId, dashboardId), eq(dashboardAcl.userId, userId)))
      .run();
  }

  addRevocationEvent(
    dashboardId: string,
    shareTokenVersion: number,
    reason: 'visibility_changed' | 'share_token_rotated' | 'owner_offboarded' | 'dashboard_deleted',
    nowIso: string,
  ): void {
    this.#db
      .insert(shareTokenRevocationEvents)
      .values({ dashboardId, shareTokenVersion, reason, revokedAt: nowIso, createdAt: nowIso })
      .run();
  }
}
