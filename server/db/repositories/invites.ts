import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { invites } from '../schema.ts';

export type InviteRow = typeof invites.$inferSelect;

/** Not revoked, not accepted, not expired. */
function pendingAt(nowIso: string) {
  return and(isNull(invites.revokedAt), isNull(invites.acceptedAt), gt(invites.expiresAt, nowIso));
}

export class InvitesRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  byId(id: string): InviteRow | undefined {
    return this.#db.select().from(invites).where(eq(invites.id, id)).get();
  }

  byTokenHash(tokenHash: string): InviteRow | undefined {
    return this.#db.select().from(invites).where(eq(invites.tokenHash, tokenHash)).get();
  }

  /** Newest first. */
  pending(nowIso: string): InviteRow[] {
    return this.#db
      .select()
      .from(invites)
      .where(pendingAt(nowIso))
      .orderBy(desc(invites.createdAt), desc(invites.id))
      .all();
  }

  /** Revokes every pending invite for the email; returns how many. */
  revokePendingFor(email: string, nowIso: string): number {
    return this.#db
      .update(invites)
      .set({ revokedAt: nowIso })
      .where(and(eq(invites.email, email), pendingAt(nowIso)))
      .run().changes;
  }

  insert(row: InviteRow): void {
    this.#db.insert(invites).values(row).run();
  }

  update(id: string, patch: Partial<Omit<InviteRow, 'id'>>): void {
    this.#db.update(invites).set(patch).where(eq(invites.id, id)).run();
  }
}
