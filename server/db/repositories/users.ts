import type { Database as Sqlite, Statement } from 'better-sqlite3';
import { and, asc, count, eq, ne } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { users } from '../schema.ts';

export type UserRow = typeof users.$inferSelect;
export type Role = UserRow['role'];

type StoredUser = [string, string, string, UserRow['role'], number, number, string, string];

export class UsersRepository {
  readonly #db: Db;
  // Every authenticated request looks its user up: prepared once as raw rows and mapped here, which
  // costs a fraction of drizzle's per-column mapping on the LAN's hottest statement.
  readonly #byId: Statement<[string], StoredUser>;

  constructor(db: Db, sqlite: Sqlite) {
    this.#db = db;
    this.#byId = sqlite
      .prepare<[string], StoredUser>(
        `SELECT id, email, password_hash, role, active, session_version, registration_date, last_login
         FROM users WHERE id = ?`,
      )
      .raw(true);
  }

  byId(id: string): UserRow | undefined {
    const row = this.#byId.get(id);
    if (!row) return undefined;
    const [, email, passwordHash, role, active, sessionVersion, registrationDate, lastLogin] = row;
    return {
      id,
      email,
      passwordHash,
      role,
      active: active === 1,
      sessionVersion,
      registrationDate,
      lastLogin,
    };
  }

  byEmail(email: string): UserRow | undefined {
    return this.#db.select().from(users).where(eq(users.email, email)).get();
  }

  /** Oldest first (registration date, then id). */
  list(): UserRow[] {
    return this.#db.select().from(users).orderBy(asc(users.registrationDate), asc(users.id)).all();
  }

  count(): number {
    return this.#db.select({ n: count() }).from(users).get()?.n ?? 0;
  }

  countActiveAdmins(): number {
    return (
      this.#db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.role, 'admin'), eq(users.active, true)))
        .get()?.n ?? 0
    );
  }

  /** The successor of §6.5: the oldest other active admin. */
  oldestActiveAdminExcept(id: string): UserRow | undefined {
    return this.#db
      .select()
      .from(users)
      .where(and(eq(users.role, 'admin'), eq(users.active, true), ne(users.id, id)))
      .orderBy(asc(users.registrationDate), asc(users.id))
      .limit(1)
      .get();
  }

  insert(row: UserRow): void {
    this.#db.insert(users).values(row).run();
  }

  update(id: string, patch: Partial<Omit<UserRow, 'id'>>): UserRow | undefined {
    return this.#db.update(users).set(patch).where(eq(users.id, id)).returning().get();
  }

  delete(id: string): void {
    this.#db.delete(users).where(eq(users.id, id)).run();
  }
}
