import { and, eq, isNotNull, lt, ne, or } from 'drizzle-orm';
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

  /**
   * Deletes the user's tokens, except `keepId`: a user has at most one live token, so issuing one
   * or completing a reset removes the others.
   */
  deleteForUser(userId: string, keepId?: string): void {
    this.#db
      .delete(passwordResetTokens)
      .where(
        and(
          eq(passwordResetTokens.userId, userId),
          keepId === undefined ? undefined : ne(passwordResetTokens.id, keepId),
        ),
      )
      .run();
  }

  /** Removes tokens that can no longer be used: expired, used or revoked. */
  pruneDead(nowIso: string): number {
    return this.#db
      .delete(passwordResetTokens)
      .where(
        or(
          lt(passwordResetTokens.expiresAt, nowIso),
          isNotNull(passwordResetTokens.usedAt),
          isNotNull(passwordResetTokens.revokedAt),
        ),
      )
      .run().changes;
  }

  markUsed(id: string, nowIso: string): void {
    this.#db.update(passwordResetTokens).set({ usedAt: nowIso }).where(eq(passwordResetTokens.id, id)).run();
  }
}
