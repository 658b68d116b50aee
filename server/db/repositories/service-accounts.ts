import { asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { serviceAccounts, serviceAccountTokens } from '../schema.ts';

export type ServiceAccountRow = typeof serviceAccounts.$inferSelect;
export type ServiceAccountTokenRow = typeof serviceAccountTokens.$inferSelect;

/** Service accounts and their tokens (§12). Tokens are kept only as `H("sa-token", secret)`. */
export class ServiceAccountsRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  byId(id: string): ServiceAccountRow | undefined {
    return this.#db.select().from(serviceAccounts).where(eq(serviceAccounts.id, id)).get();
  }

  byName(name: string): ServiceAccountRow | undefined {
    return this.#db
      .select()
      .from(serviceAccounts)
      .where(sql`${serviceAccounts.name} = ${name} COLLATE NOCASE`)
      .get();
  }

  /** Ordered by name. */
  list(): ServiceAccountRow[] {
    return this.#db
      .select()
      .from(serviceAccounts)
      .orderBy(sql`${serviceAccounts.name} COLLATE NOCASE`, asc(serviceAccounts.id))
      .all();
  }

  insert(row: ServiceAccountRow): void {
    this.#db.insert(serviceAccounts).values(row).run();
  }

  replace(row: ServiceAccountRow): void {
    const { id, ...rest } = row;
    this.#db.update(serviceAccounts).set(rest).where(eq(serviceAccounts.id, id)).run();
  }

  /** Its tokens go with it (FK CASCADE). */
  delete(id: string): void {
    this.#db.delete(serviceAccounts).where(eq(serviceAccounts.id, id)).run();
  }

  touchAccount(id: string, nowIso: string): void {
    this.#db.update(serviceAccounts).set({ lastUsedAt: nowIso }).where(eq(serviceAccounts.id, id)).run();
  }

  // ---- tokens ----

  tokenById(id: string): ServiceAccountTokenRow | undefined {
    return this.#db.select().from(serviceAccountTokens).where(eq(serviceAccountTokens.id, id)).get();
  }

  /** Newest first. */
  tokensOf(serviceAccountId: string): ServiceAccountTokenRow[] {
    return this.#db
      .select()
      .from(serviceAccountTokens)
      .where(eq(serviceAccountTokens.serviceAccountId, serviceAccountId))
      .orderBy(desc(serviceAccountTokens.createdAt), desc(serviceAccountTokens.id))
      .all();
  }

  insertToken(row: ServiceAccountTokenRow): void {
    this.#db.insert(serviceAccountTokens).values(row).run();
  }

  revokeToken(id: string, nowIso: string): void {
    this.#db
      .update(serviceAccountTokens)
      .set({ revokedAt: nowIso })
      .where(eq(serviceAccountTokens.id, id))
      .run();
  }

  touchToken(id: string, nowIso: string): void {
    this.#db
      .update(serviceAccountTokens)
      .set({ lastUsedAt: nowIso })
      .where(eq(serviceAccountTokens.id, id))
      .run();
  }
}
