import type { Statement } from 'better-sqlite3';
import type { Database } from './database.ts';
import { AuditRepository } from './repositories/audit.ts';
import { DashboardsRepository } from './repositories/dashboards.ts';
import { InvitesRepository } from './repositories/invites.ts';
import { LimiterRepository } from './repositories/limiter.ts';
import { PasswordResetsRepository } from './repositories/password-resets.ts';
import { PolicyRepository } from './repositories/policy.ts';
import { BrokerProfilesRepository, CredentialProfilesRepository } from './repositories/profiles.ts';
import { ServiceAccountsRepository } from './repositories/service-accounts.ts';
import { UsersRepository } from './repositories/users.ts';

/** The repositories over one connection, and the one way to group their writes atomically. */
export class Store {
  readonly users: UsersRepository;
  readonly invites: InvitesRepository;
  readonly passwordResets: PasswordResetsRepository;
  readonly policy: PolicyRepository;
  readonly audit: AuditRepository;
  readonly limiter: LimiterRepository;
  readonly dashboards: DashboardsRepository;
  readonly credentialProfiles: CredentialProfilesRepository;
  readonly brokerProfiles: BrokerProfilesRepository;
  readonly serviceAccounts: ServiceAccountsRepository;
  readonly #database: Database;
  readonly #generation: () => string;
  readonly #begin: Statement;
  readonly #commit: Statement;
  readonly #rollback: Statement;

  constructor(database: Database) {
    const { db } = database;
    this.#database = database;
    this.users = new UsersRepository(db, database.sqlite);
    this.invites = new InvitesRepository(db);
    this.passwordResets = new PasswordResetsRepository(db);
    this.policy = new PolicyRepository(db);
    this.audit = new AuditRepository(db);
    this.limiter = new LimiterRepository(db, database.sqlite);
    this.dashboards = new DashboardsRepository(db, database.sqlite);
    this.credentialProfiles = new CredentialProfilesRepository(db);
    this.brokerProfiles = new BrokerProfilesRepository(db);
    this.serviceAccounts = new ServiceAccountsRepository(db);
    // total_changes() moves with every row this connection writes; data_version with every commit
    // by another connection (an operator's CLI on the same file). Together they say "nothing stored
    // has changed" without knowing which table a cached answer read.
    const changes = database.sqlite.prepare('SELECT total_changes()').pluck();
    this.#begin = database.sqlite.prepare('BEGIN IMMEDIATE');
    this.#commit = database.sqlite.prepare('COMMIT');
    this.#rollback = database.sqlite.prepare('ROLLBACK');
    this.#generation = () => `${changes.get()}:${database.sqlite.pragma('data_version', { simple: true })}`;
  }

  /** Equal on two calls exactly when no row was written in between (by anyone). */
  generation(): string {
    return this.#generation();
  }

  /**
   * Runs `work` in one IMMEDIATE transaction: better-sqlite3 is synchronous, so no other request can
   * interleave between a check and the write that depends on it. The outermost transaction runs on
   * three statements prepared once (every mint and gateway call commits one, and wrapping a new
   * function per call cost as much as the commit); a nested one is a savepoint, as better-sqlite3
   * makes it.
   */
  transaction<T>(work: () => T): T {
    const { sqlite } = this.#database;
    if (sqlite.inTransaction) return sqlite.transaction(work).immediate();
    this.#begin.run();
    try {
      const result = work();
      this.#commit.run();
      return result;
    } catch (error) {
      // A failed COMMIT may already have ended the transaction (SQLite rolls back on some errors).
      if (sqlite.inTransaction) this.#rollback.run();
      throw error;
    }
  }
}
