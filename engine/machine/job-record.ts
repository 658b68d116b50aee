// The job history's row: one per job the machine process ran (streamed or dry run), written when
// it starts and again when it ends, with where it got to. Resume reads `lastAcknowledgedLine` to
// find the last circuit that certainly completed.
import { z } from 'zod';

/** How a job ended; `running` only while it runs (or until the next start finds it was cut off). */
export const JOB_OUTCOMES = [
  'completed',
  'cancelled',
  'e-stopped',
  'failed',
  'controller lost',
  'machine process died',
] as const;
export type JobOutcomeName = (typeof JOB_OUTCOMES)[number];

export interface JobRecord {
  id: number;
  /** The file's name as the client gave it; null when it sent only the G-code. */
  program: string | null;
  /** SHA-256 of the program's bytes, lowercase hex. */
  sha256: string;
  dryRun: boolean;
  /** The machine profile the connection was made with, by name then; null without one. */
  profile: string | null;
  profileId: number | null;
  port: string | null;
  /** ISO 8601 (UTC). */
  startedAt: string;
  endedAt: string | null;
  /** Commands in the program. */
  total: number;
  sent: number;
  acknowledged: number;
  /**
   * The program-text line number of the last command the controller acknowledged (0 before the
   * first): a resume starts no later than this, less the profile's queue depth.
   */
  lastAcknowledgedLine: number;
  outcome: JobOutcomeName | 'running';
  /** Why it ended, in words (the controller's error, the operator's e-stop…); null when it completed. */
  reason: string | null;
  /** The profile's controller queue depth when the job ran (what resume counts back by). */
  queueDepth: number;
  /** The job this one takes up again from a checkpoint (a resume); null for any other job. */
  continues: number | null;
}

export interface JobList {
  jobs: JobRecord[];
}

const instant = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)), 'must be a date and time (ISO 8601)')
  .transform((text) => new Date(text).toISOString());

/** `GET /api/machine/jobs` query: newest first, optionally filtered. */
export const jobsQuery = z.object({
  outcome: z
    .enum([...JOB_OUTCOMES, 'running'], {
      error: `must be one of ${[...JOB_OUTCOMES, 'running'].join(', ')}`,
    })
    .optional(),
  since: instant.optional(),
  until: instant.optional(),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10000')
    .default(200),
  format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).default('json'),
});
export type JobsQuery = z.output<typeof jobsQuery>;

/** The CSV export's columns, in order: the row's fields by their wire names. */
export const JOB_CSV_COLUMNS = [
  'id',
  'program',
  'sha256',
  'dryRun',
  'profile',
  'port',
  'startedAt',
  'endedAt',
  'sent',
  'acknowledged',
  'total',
  'lastAcknowledgedLine',
  'outcome',
  'reason',
  'continues',
] as const satisfies readonly (keyof JobRecord)[];
