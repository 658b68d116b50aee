import type { Db } from '../database.ts';
import { policy } from '../schema.ts';

export class PolicyRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  all(): Map<string, unknown> {
    return new Map(
      this.#db
        .select()
        .from(policy)
        .all()
        .map((row) => [row.key, row.value]),
    );
  }

  set(key: string, value: unknown, nowIso: string, updatedBy: string | null): void {
    this.#db
      .insert(policy)
      .values({ key, value, updatedAt: nowIso, updatedBy })
      .onConflictDoUpdate({ target: policy.key, set: { value, updatedAt: nowIso, updatedBy } })
      .run();
  }
}
