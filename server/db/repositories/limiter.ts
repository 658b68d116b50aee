import { eq, lt } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { securityLimiterState } from '../schema.ts';

export type LimiterRow = typeof securityLimiterState.$inferSelect;

export class LimiterRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(keyHash: string): LimiterRow | undefined {
    return this.#db
      .select()
      .from(securityLimiterState)
      .where(eq(securityLimiterState.keyHash, keyHash))
      .get();
  }

  put(row: LimiterRow): void {
    const { keyHash, ...rest } = row;
    this.#db
      .insert(securityLimiterState)
      .values(row)
      .onConflictDoUpdate({ target: securityLimiterState.keyHash, set: rest })
      .run();
  }

  delete(keyHash: string): void {
    this.#db.delete(securityLimiterState).where(eq(securityLimiterState.keyHash, keyHash)).run();
  }

  pruneExpired(nowIso: string): number {
    return this.#db.delete(securityLimiterState).where(lt(securityLimiterState.expiresAt, nowIso)).run()
      .changes;
  }
}
