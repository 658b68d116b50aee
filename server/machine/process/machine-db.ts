// The machine process's own database, `<data dir>/machine.sqlite`: machine profiles and the job
// history. The machine process writes it, not the core, so a job that outlives the core is still
// recorded, and the core's database (and its migrations) never has two writers. Plain
// better-sqlite3 with the schema versioned by `user_version`: the process loads nothing heavy.
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export const MACHINE_DATABASE_FILE = 'machine.sqlite';

/** Each entry brings the schema from version k to k + 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE profiles (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     fields TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE jobs (
     id INTEGER PRIMARY KEY,
     program TEXT,
     sha256 TEXT NOT NULL,
     dry_run INTEGER NOT NULL,
     profile_id INTEGER,
     profile TEXT,
     port TEXT,
     started_at TEXT NOT NULL,
     ended_at TEXT,
     total INTEGER NOT NULL,
     sent INTEGER NOT NULL DEFAULT 0,
     acknowledged INTEGER NOT NULL DEFAULT 0,
     last_acknowledged_line INTEGER NOT NULL DEFAULT 0,
     outcome TEXT NOT NULL,
     reason TEXT,
     queue_depth INTEGER NOT NULL,
     seen_at TEXT NOT NULL
   );
   CREATE INDEX jobs_started ON jobs (started_at);
   CREATE INDEX jobs_outcome ON jobs (outcome);`,
  // A resumed job names the job it takes up again.
  'ALTER TABLE jobs ADD COLUMN continues INTEGER;',
];

export type MachineDatabase = BetterSqlite3.Database;

/**
 * Opens (creating it, mode 0600) and migrates the machine database. A file written by a newer
 * Towpath is refused rather than changed.
 */
export function openMachineDatabase(dataDir: string): MachineDatabase {
  const path = join(dataDir, MACHINE_DATABASE_FILE);
  closeSync(openSync(path, 'a', 0o600));
  const db = new BetterSqlite3(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    // A row written at a job's start must survive the process dying a moment later; NORMAL keeps
    // it unless the whole computer loses power, and costs no fsync per write.
    db.pragma('synchronous = NORMAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length)
      throw new Error(
        `${path} was written by a newer Towpath (schema ${version}, this one knows ${MIGRATIONS.length}); it was left untouched`,
      );
    for (let next = version; next < MIGRATIONS.length; next++) {
      db.transaction(() => {
        db.exec(MIGRATIONS[next] as string);
        db.pragma(`user_version = ${next + 1}`);
      })();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
