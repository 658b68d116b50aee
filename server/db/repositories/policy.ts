import type { Db } from '../database.ts';
import { policy } from '../schema.ts';

export class PolicyRepository {
  readonly #db: Db;
  // Read by every dashboard request (visibility defaults, listing, SAFE mode): prepared once.
  readonly #all;

  constructor(db: Db) {
    this.#db = db;
    this.#all = db.select().from(policy).prepare();
  }

  all(): Map<string, unknown> {
    return new Map(this.#all.all().map((row) => [row.key, row.value]));
  }

  set(key: string, value: unknown, nowIso: string, updatedBy: string | null): void {
    this.#db
      .insert(policy)
      .values({ key, value, updatedAt: nowIso, updatedBy })
      .onConflictDoUpdate({ target: policy.key, set: { value, updatedAt: nowIso, updatedBy } })
      .run();
  }
}
