import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StartupError } from '../errors.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { latestMigrationMillis, openDatabase } from './database.ts';

const TABLES = [
  'audit_events',
  'broker_profiles',
  'credential_profiles',
  'dashboard_acl',
  'dashboard_revisions',
  'dashboards',
  'invites',
  'password_reset_tokens',
  'policy',
  'security_limiter_state',
  'service_account_tokens',
  'service_accounts',
  'share_token_revocation_events',
  'users',
];

describe('openDatabase', () => {
  it.skipIf(process.platform === 'win32')(
    'creates the database and its WAL readable by the owner only',
    async () => {
      const dir = await makeTempDir();
      const database = openDatabase(dir);
      try {
        database.sqlite.prepare('CREATE TABLE probe (x)').run();
        for (const file of ['towpath.db', 'towpath.db-wal', 'towpath.db-shm'])
          expect(((await stat(join(dir, file))).mode & 0o777).toString(8), file).toBe('600');
      } finally {
        database.close();
      }
    },
  );

  it('creates every table of the spec with WAL and foreign keys on', async () => {
    const dir = await makeTempDir();
    const database = openDatabase(dir);
    try {
      const tables = database.sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
        )
        .all()
        .map((row) => (row as { name: string }).name);
      expect(tables).toEqual(TABLES);
      expect(database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(database.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
      // The share-token invariant is enforced by the schema itself.
      database.sqlite.exec(
        "INSERT INTO users (id, email, password_hash, role, registration_date, last_login) VALUES ('u', 'a@b.cd', 'h', 'admin', 't', 't')",
      );
      expect(() =>
        database.sqlite.exec(
          "INSERT INTO dashboards (id, title, version, visibility, share_token, owner_id, created_at, updated_at) VALUES ('d', 't', '1', 'private', 'tok', 'u', 't', 't')",
        ),
      ).toThrow(/CHECK constraint/);
      expect(() => database.sqlite.exec("UPDATE users SET role = 'root'")).toThrow(/CHECK constraint/);
    } finally {
      database.close();
    }
  });

  it('reopens an existing database in place, keeping its rows', async () => {
    const dir = await makeTempDir();
    const first = openDatabase(dir);
    first.sqlite.exec("INSERT INTO policy (key, value, updated_at) VALUES ('editorCanPublish', 'true', 't')");
    first.close();
    const second = openDatabase(dir);
    try {
      expect(second.sqlite.prepare('SELECT key FROM policy').all()).toEqual([{ key: 'editorCanPublish' }]);
    } finally {
      second.close();
    }
  });

  it('migrates a database left by a version without the dashboard tables', async () => {
    const dir = await makeTempDir();
    const old = new BetterSqlite3(join(dir, 'towpath.db'));
    old.exec(
      "CREATE TABLE legacy_notes (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO legacy_notes (note) VALUES ('kept')",
    );
    old.close();
    const database = openDatabase(dir);
    try {
      expect(database.sqlite.prepare('SELECT note FROM legacy_notes').all()).toEqual([{ note: 'kept' }]);
      expect(database.sqlite.prepare('SELECT COUNT(*) AS n FROM users').get()).toEqual({ n: 0 });
    } finally {
      database.close();
    }
  });

  it('refuses a database from a newer Towpath and leaves it untouched', async () => {
    const dir = await makeTempDir();
    openDatabase(dir).close();
    const raw = new BetterSqlite3(join(dir, 'towpath.db'));
    raw
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('future', latestMigrationMillis() + 1000);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const before = await readFile(join(dir, 'towpath.db'));
    expect(() => openDatabase(dir)).toThrow(StartupError);
    expect(() => openDatabase(dir)).toThrow(/written by a newer Towpath version/);
    expect(await readFile(join(dir, 'towpath.db'))).toEqual(before);
  });

  it('refuses a damaged file with a clear line and never overwrites it', async () => {
    const dir = await makeTempDir();
    const garbage = Buffer.from('this is not a sqlite database at all, just some bytes'.repeat(100));
    await writeFile(join(dir, 'towpath.db'), garbage);
    expect(() => openDatabase(dir)).toThrow(/damaged or not a Towpath database \(SQLITE_NOTADB\)/);
    expect(await readFile(join(dir, 'towpath.db'))).toEqual(garbage);
  });

  it('refuses a file damaged past its first page before writing anything to it', async () => {
    const dir = await makeTempDir();
    const database = openDatabase(dir);
    database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    database.close();
    const path = join(dir, 'towpath.db');
    const bytes = await readFile(path);
    // Page 3 is a table page; page 1 (schema) and the header stay readable.
    bytes.fill(0xa5, 2 * 4096, 3 * 4096);
    await writeFile(path, bytes);
    expect(() => openDatabase(dir)).toThrow(
      /^the database .*towpath\.db is damaged \(Tree \d+ page \d+: [^\n]*\); it was left untouched/,
    );
    expect(await readFile(path)).toEqual(bytes);
  });
});
