import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { brokerProfiles, credentialProfiles } from '../schema.ts';

export type CredentialProfileRow = typeof credentialProfiles.$inferSelect;
export type BrokerProfileRow = typeof brokerProfiles.$inferSelect;

/** Credential profiles (§10.1): rows hold only the sealed envelope and the secret's shape. */
export class CredentialProfilesRepository {
  readonly #db: Db;
  // Every mint and introspection reads its profile: prepared once, not rebuilt per call.
  readonly #byId;

  constructor(db: Db) {
    this.#db = db;
    this.#byId = db
      .select()
      .from(credentialProfiles)
      .where(eq(credentialProfiles.id, sql.placeholder('id')))
      .prepare();
  }

  byId(id: string): CredentialProfileRow | undefined {
    return this.#byId.get({ id });
  }

  /** The profile whose name equals `name` ignoring case. */
  byName(name: string): CredentialProfileRow | undefined {
    return this.#db
      .select()
      .from(credentialProfiles)
      .where(sql`${credentialProfiles.name} = ${name} COLLATE NOCASE`)
      .get();
  }

  list(): CredentialProfileRow[] {
    return this.#db
      .select()
      .from(credentialProfiles)
      .orderBy(sql`${credentialProfiles.name} COLLATE NOCASE`, asc(credentialProfiles.id))
      .all();
  }

  insert(row: CredentialProfileRow): void {
    this.#db.insert(credentialProfiles).values(row).run();
  }

  replace(row: CredentialProfileRow): void {
    const { id, ...rest } = row;
    this.#db.update(credentialProfiles).set(rest).where(eq(credentialProfiles.id, id)).run();
  }

  delete(id: string): void {
    this.#db.delete(credentialProfiles).where(eq(credentialProfiles.id, id)).run();
  }
}

/** Broker profiles (§10.2). */
export class BrokerProfilesRepository {
  readonly #db: Db;
  readonly #byId;

  constructor(db: Db) {
    this.#db = db;
    this.#byId = db
      .select()
      .from(brokerProfiles)
      .where(eq(brokerProfiles.id, sql.placeholder('id')))
      .prepare();
  }

  byId(id: string): BrokerProfileRow | undefined {
    return this.#byId.get({ id });
  }

  byName(name: string): BrokerProfileRow | undefined {
    return this.#db
      .select()
      .from(brokerProfiles)
      .where(sql`${brokerProfiles.name} = ${name} COLLATE NOCASE`)
      .get();
  }

  list(protocol?: 'mqtt'): BrokerProfileRow[] {
    const query = this.#db.select().from(brokerProfiles);
    const filtered = protocol ? query.where(eq(brokerProfiles.protocol, protocol)) : query;
    return filtered.orderBy(sql`${brokerProfiles.name} COLLATE NOCASE`, asc(brokerProfiles.id)).all();
  }

  insert(row: BrokerProfileRow): void {
    this.#db.insert(brokerProfiles).values(row).run();
  }

  replace(row: BrokerProfileRow): void {
    const { id, ...rest } = row;
    this.#db.update(brokerProfiles).set(rest).where(eq(brokerProfiles.id, id)).run();
  }

  delete(id: string): void {
    this.#db.delete(brokerProfiles).where(eq(brokerProfiles.id, id)).run();
  }
}
