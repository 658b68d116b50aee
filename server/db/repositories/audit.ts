import { desc, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { auditEvents } from '../schema.ts';

export type AuditRow = typeof auditEvents.$inferSelect;
export type NewAuditRow = Omit<AuditRow, 'id'>;

export class AuditRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(row: NewAuditRow): void {
    this.#db.insert(auditEvents).values(row).run();
  }

  /** Newest first; `actionPrefix` is literal (`%` and `_` match themselves). */
  list(limit: number, actionPrefix: string): AuditRow[] {
    const query = this.#db.select().from(auditEvents);
    const filtered =
      actionPrefix === ''
        ? query
        : query.where(sql`substr(${auditEvents.action}, 1, ${actionPrefix.length}) = ${actionPrefix}`);
    return filtered.orderBy(desc(auditEvents.createdAt), desc(auditEvents.id)).limit(limit).all();
  }
}
