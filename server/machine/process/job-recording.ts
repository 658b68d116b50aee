// How the machine controller's jobs reach the job history: a row when the job starts, its progress
// at most once a second while it runs (so a job whose process dies keeps where it got to), and its
// outcome when it ends, in the history's words. A history that cannot be written is logged and
// never stops or slows the job.
import type { JobOutcomeName } from '../../../engine/machine/job-record.ts';
import type { JobOutcome, JobProgress, MachineEvent } from '../../../engine/machine/types.ts';
import type { Logger } from '../../log.ts';
import { type JobEnd, type JobHistory, type JobStart, PROGRESS_WRITE_MS } from './job-history.ts';

export type JobRecorder = Pick<JobHistory, 'start' | 'progress' | 'end'>;

/** What the controller itself did to end a job, if anything. */
export type JobEnding = 'e-stopped' | 'aborted' | 'shut down' | undefined;

export interface RecordedJob {
  start: JobStart;
  done: Promise<JobOutcome>;
  subscribe(listener: (event: MachineEvent) => void): () => void;
  ending(): JobEnding;
  logger: Logger | undefined;
  now?: () => number;
}

export function recordJob(history: JobRecorder, job: RecordedJob): void {
  const now = job.now ?? Date.now;
  const safely = (what: string, write: () => void) => {
    try {
      write();
    } catch (error) {
      job.logger?.error({ err: error }, `the job history could not record ${what}`);
    }
  };
  let id: number | undefined;
  safely('a job start', () => {
    id = history.start(job.start);
  });
  if (id === undefined) return;
  const row = id;
  let last: Pick<JobProgress, 'sent' | 'acknowledged' | 'sourceLine'> = {
    sent: 0,
    acknowledged: 0,
    sourceLine: 0,
  };
  let writtenAt = now();
  const unsubscribe = job.subscribe((event) => {
    if (event.type !== 'progress') return;
    last = event;
    if (now() - writtenAt < PROGRESS_WRITE_MS) return;
    writtenAt = now();
    safely('job progress', () =>
      history.progress(row, {
        sent: last.sent,
        acknowledged: last.acknowledged,
        lastAcknowledgedLine: last.sourceLine,
      }),
    );
  });
  void job.done.then((outcome) => {
    unsubscribe();
    const end: JobEnd = {
      sent: outcome.sent,
      acknowledged: outcome.acknowledged,
      lastAcknowledgedLine: last.sourceLine,
      ...outcomeOf(outcome, job.ending()),
    };
    safely('a job end', () => history.end(row, end));
  });
}

/** The history's outcome and reason for how a job ended. */
export function outcomeOf(
  outcome: JobOutcome,
  ending: JobEnding,
): { outcome: JobOutcomeName; reason: string | null } {
  const message = outcome.error?.message ?? null;
  if (outcome.status === 'completed') return { outcome: 'completed', reason: null };
  if (outcome.status === 'cancelled')
    return {
      outcome: 'cancelled',
      reason:
        ending === 'shut down' ? 'The machine process shut down during the job' : 'Cancelled by the operator',
    };
  if (ending === 'e-stopped') return { outcome: 'e-stopped', reason: message ?? 'Emergency stop' };
  if (ending === 'aborted' || ending === 'shut down') return { outcome: 'cancelled', reason: message };
  if (message !== null && CONTROLLER_LOST.test(message))
    return { outcome: 'controller lost', reason: message };
  return { outcome: 'failed', reason: message };
}

/** Errors that mean the controller went away or stopped answering, rather than refused something. */
const CONTROLLER_LOST = /^(Serial port .* closed|No response from the controller|Controller restarted)/;
