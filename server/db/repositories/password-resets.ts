import { and, eq, isNull, ne } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { passwordResetTokens } from '../schema.ts';

export type PasswordResetRow = typeof passwordResetTokens.$inferSelect;

export class PasswordResetsRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  byTokenHash(tokenHash: string): PasswordResetRow | undefined {
    return this.#db
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.tokenHash, tokenHash))
      .get();
  }

  insert(row: PasswordResetRow): void {
    this.#db.insert(passwordResetTokens).values(row).run();
  }

  /** Revokes the user's unused, unrevoked tokens, except `keepId`. */
  revokeUnused(userId: string, nowIso: string, keepId?: string): void {
    this.#db
      .update(passwordResetTokens)
      .set({ revokedAt: nowIso })
      .where(
        and(
          eq(passwordResetTokens.userId, userId),
          isNull(passwordResetTokens.usedAt),
          isNull(passwordResetTokens.revokedAt),
          keepId === undefined ? undefined : ne(passwordResetTokens.id, keepId),
        ),
      )
      .run();
  }

  markUsed(id: string, nowIso: string): void {
    this.#db.update(passwordResetTokens).set({ usedAt: nowIso }).where(eq(passwordResetTokens.id, id)).run();
  }
}
