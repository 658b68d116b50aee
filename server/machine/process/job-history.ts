// The job history in the machine database. A row is written when a job starts (outcome `running`),
// its progress now and then while it runs, and its outcome when it ends; all by the machine
// process, so a job whose core died is still recorded. A row still `running` when a machine process
// starts belongs to one that died mid-job: it is closed as `machine process died`, at the last time
// that process was seen writing it.
import {
  JOB_CSV_COLUMNS,
  type JobOutcomeName,
  type JobRecord,
  type JobsQuery,
} from '../../../engine/machine/job-record.ts';
import type { MachineDatabase } from './machine-db.ts';

/** How often a running job's progress is written (its start and end are written at once). */
export const PROGRESS_WRITE_MS = 1000;

export interface JobStart {
  program: string | null;
  sha256: string;
  dryRun: boolean;
  profileId: number | null;
  profile: string | null;
  port: string | null;
  total: number;
  queueDepth: number;
  /** The job a resume takes up again. */
  continues?: number | null;
}

export interface JobProgressRow {
  sent: number;
  acknowledged: number;
  lastAcknowledgedLine: number;
}

export interface JobEnd extends JobProgressRow {
  outcome: JobOutcomeName;
  reason: string | null;
}

interface Row {
  id: number;
  program: string | null;
  sha256: string;
  dry_run: number;
  profile_id: number | null;
  profile: string | null;
  port: string | null;
  started_at: string;
  ended_at: string | null;
  total: number;
  sent: number;
  acknowledged: number;
  last_acknowledged_line: number;
  outcome: JobRecord['outcome'];
  reason: string | null;
  queue_depth: number;
  continues: number | null;
}

export class JobHistory {
  readonly #db: MachineDatabase;
  readonly #now: () => Date;

  constructor(db: MachineDatabase, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#now = now;
  }

  /** Records a job that starts now; returns its id. */
  start(job: JobStart): number {
    const now = this.#now().toISOString();
    const { lastInsertRowid } = this.#db
      .prepare(
        `INSERT INTO jobs (program, sha256, dry_run, profile_id, profile, port, started_at, total, outcome, queue_depth, seen_at, continues)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
      )
      .run(
        job.program,
        job.sha256,
        job.dryRun ? 1 : 0,
        job.profileId,
        job.profile,
        job.port,
        now,
        job.total,
        job.queueDepth,
        now,
        job.continues ?? null,
      );
    return Number(lastInsertRowid);
  }

  progress(id: number, progress: JobProgressRow): void {
    this.#db
      .prepare(
        `UPDATE jobs SET sent = ?, acknowledged = ?, last_acknowledged_line = ?, seen_at = ?
         WHERE id = ? AND outcome = 'running'`,
      )
      .run(
        progress.sent,
        progress.acknowledged,
        progress.lastAcknowledgedLine,
        this.#now().toISOString(),
        id,
      );
  }

  end(id: number, end: JobEnd): void {
    const now = this.#now().toISOString();
    this.#db
      .prepare(
        `UPDATE jobs SET sent = ?, acknowledged = ?, last_acknowledged_line = ?, outcome = ?, reason = ?,
           ended_at = ?, seen_at = ?
         WHERE id = ? AND outcome = 'running'`,
      )
      .run(end.sent, end.acknowledged, end.lastAcknowledgedLine, end.outcome, end.reason, now, now, id);
  }

  /**
   * Closes the rows a machine process that died left `running`; returns how many. Called once at
   * start, before any job of this process can have begun.
   */
  closeAbandoned(): number {
    const found = this.#now().toISOString();
    const { changes } = this.#db
      .prepare(
        `UPDATE jobs SET outcome = 'machine process died', ended_at = seen_at,
           reason = 'The machine process ended while the job ran; found when the next one started at ' || ?
         WHERE outcome = 'running'`,
      )
      .run(found);
    return changes;
  }

  /** Newest first, filtered as the query says. */
  list(query: Pick<JobsQuery, 'outcome' | 'since' | 'until' | 'limit'>): JobRecord[] {
    const where: string[] = [];
    const values: (string | number)[] = [];
    if (query.outcome) {
      where.push('outcome = ?');
      values.push(query.outcome);
    }
    if (query.since) {
      where.push('started_at >= ?');
      values.push(query.since);
    }
    if (query.until) {
      where.push('started_at <= ?');
      values.push(query.until);
    }
    const rows = this.#db
      .prepare(
        `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT ?`,
      )
      .all(...values, query.limit) as Row[];
    return rows.map(toRecord);
  }

  get(id: number): JobRecord | undefined {
    const row = this.#db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }
}

function toRecord(row: Row): JobRecord {
  return {
    id: row.id,
    program: row.program,
    sha256: row.sha256,
    dryRun: row.dry_run === 1,
    profile: row.profile,
    profileId: row.profile_id,
    port: row.port,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    total: row.total,
    sent: row.sent,
    acknowledged: row.acknowledged,
    lastAcknowledgedLine: row.last_acknowledged_line,
    outcome: row.outcome,
    reason: row.reason,
    queueDepth: row.queue_depth,
    continues: row.continues,
  };
}

/** The rows as CSV (RFC 4180: CRLF line ends, fields quoted when they need it), header first. */
export function jobsCsv(jobs: readonly JobRecord[]): string {
  const lines = [JOB_CSV_COLUMNS.join(',')];
  for (const job of jobs) lines.push(JOB_CSV_COLUMNS.map((column) => csvField(job[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  // A spreadsheet runs a cell that starts with = + - @ as a formula; a program name is the
  // operator's own text, so it is shown as text instead.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
