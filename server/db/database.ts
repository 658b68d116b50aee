import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { StartupError } from '../errors.ts';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Database {
  db: Db;
  /** The raw connection, for transactions and pragmas. Only repositories use either. */
  sqlite: BetterSqlite3.Database;
  path: string;
  close(): void;
}

export const DATABASE_FILE = 'towpath.db';
export const MIGRATIONS_FOLDER = join(import.meta.dirname, 'migrations');
const MIGRATIONS_TABLE = '__drizzle_migrations';

interface Journal {
  entries: { tag: string; when: number }[];
}

/**
 * Opens `<dataDir>/towpath.db` and brings its schema up to date. A database written by a newer
 * Towpath, or a file that is not a SQLite database, stops the start with one clear line and is left
 * byte for byte as it was: the operator's data is never overwritten to make the start succeed.
 */
export function openDatabase(dataDir: string): Database {
  const path = join(dataDir, DATABASE_FILE);
  let sqlite: BetterSqlite3.Database;
  try {
    // Users, tokens and credential profiles live here: a new file is the owner's alone (0600), and
    // SQLite gives its -wal and -shm files the database file's mode. Opening for append creates the
    // file if it is missing and changes nothing in one that exists.
    closeSync(openSync(path, 'a', 0o600));
    sqlite = new BetterSqlite3(path);
  } catch (error) {
    throw new StartupError(`cannot open the database ${path}: ${(error as Error).message}`);
  }
  try {
    // Reading the header first means a corrupt file fails here, before any pragma could write.
    sqlite.pragma('schema_version');
    refuseNewerSchema(sqlite, path);
    refuseDamaged(sqlite, path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    const db = drizzle(sqlite, { schema });
    migrate(db, { migrationsFolder: MIGRATIONS_FOLDER, migrationsTable: MIGRATIONS_TABLE });
    return { db, sqlite, path, close: () => sqlite.close() };
  } catch (error) {
    sqlite.close();
    if (error instanceof StartupError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new StartupError(
        `the database ${path} is damaged or not a Towpath database (${code}); it was left untouched — restore a backup or move it away`,
      );
    }
    throw new StartupError(`cannot migrate the database ${path}: ${(error as Error).message}`);
  }
}

/**
 * Damage past the first page (a table or index page) only shows when that page is read, maybe long
 * after start and after writes. `quick_check` reads every page without writing (O(size), well under
 * a second for a workstation's database), so such a file is refused before anything touches it.
 */
function refuseDamaged(sqlite: BetterSqlite3.Database, path: string): void {
  const problems = (sqlite.pragma('quick_check(1)') as { quick_check: string }[]).map(
    (row) => row.quick_check,
  );
  if (problems.length === 1 && problems[0] === 'ok') return;
  // One line: SQLite's report starts with a "*** in database main ***" line of its own.
  const problem = (problems[0] ?? 'integrity check failed')
    .replace(/\*\*\*[^*]*\*\*\*/g, '')
    .replace(/\s+/g, ' ');
  throw new StartupError(
    `the database ${path} is damaged (${problem.trim()}); it was left untouched — restore a backup or move it away`,
  );
}

function refuseNewerSchema(sqlite: BetterSqlite3.Database, path: string): void {
  const table = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(MIGRATIONS_TABLE);
  if (!table) return;
  const row = sqlite.prepare(`SELECT MAX(created_at) AS last FROM ${MIGRATIONS_TABLE}`).get() as {
    last: number | null;
  };
  const applied = Number(row.last ?? 0);
  const known = latestMigrationMillis();
  if (applied > known) {
    throw new StartupError(
      `the database ${path} was written by a newer Towpath version (schema from ${new Date(applied).toISOString()}); update Towpath to open it — the file was left untouched`,
    );
  }
}

export function latestMigrationMillis(): number {
  const journal = JSON.parse(
    readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as Journal;
  return Math.max(0, ...journal.entries.map((entry) => entry.when));
}
