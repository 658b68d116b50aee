import type { Database as Sqlite, Statement } from 'better-sqlite3';
import { eq, lt } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { securityLimiterState } from '../schema.ts';

export type LimiterRow = typeof securityLimiterState.$inferSelect;

type StoredRow = [string, number, string, string | null, number, string];

/**
 * The security limiter's rows (§16). Every sign-in, mint and gateway call reads and writes here, so
 * the two hot statements are prepared once (raw rows as arrays) instead of built per call.
 */
export class LimiterRepository {
  readonly #db: Db;
  readonly #get: Statement<[string], StoredRow>;
  readonly #put: Statement<StoredRow>;

  constructor(db: Db, sqlite: Sqlite) {
    this.#db = db;
    this.#get = sqlite
      .prepare<[string], StoredRow>(
        `SELECT key_hash, count, window_started_at, lock_until, reported, expires_at
         FROM security_limiter_state WHERE key_hash = ?`,
      )
      .raw(true);
    this.#put = sqlite.prepare<StoredRow>(
      `INSERT INTO security_limiter_state (key_hash, count, window_started_at, lock_until, reported, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_hash) DO UPDATE SET count = excluded.count, window_started_at = excluded.window_started_at,
         lock_until = excluded.lock_until, reported = excluded.reported, expires_at = excluded.expires_at`,
    );
  }

  get(keyHash: string): LimiterRow | undefined {
    const row = this.#get.get(keyHash);
    if (!row) return undefined;
    const [, count, windowStartedAt, lockUntil, reported, expiresAt] = row;
    return { keyHash, count, windowStartedAt, lockUntil, reported: reported === 1, expiresAt };
  }

  put(row: LimiterRow): void {
    this.#put.run(
      row.keyHash,
      row.count,
      row.windowStartedAt,
      row.lockUntil,
      row.reported ? 1 : 0,
      row.expiresAt,
    );
  }

  delete(keyHash: string): void {
    this.#db.delete(securityLimiterState).where(eq(securityLimiterState.keyHash, keyHash)).run();
  }

  pruneExpired(nowIso: string): number {
    return this.#db.delete(securityLimiterState).where(lt(securityLimiterState.expiresAt, nowIso)).run()
      .changes;
  }
}
