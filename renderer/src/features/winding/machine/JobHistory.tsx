// The job history, newest first: every job and dry run the machine process ran, with how far it got
// and how it ended. Filters by outcome and start time; the CSV export takes the same filters.
import { useId, useState } from 'react';
import { JOB_OUTCOMES, type JobRecord, MACHINE_ROUTES } from '#engine/machine/contract.ts';
import { formatNumber } from '../../../ui/format.ts';
import { type JobFilters, jobsQueryString, NO_FILTERS, useJobHistory } from './useMachineRecords.ts';
import './records.css';

export interface JobHistoryProps {
  /** Anything that changes when a job starts or ends (the machine's state): the list is read again. */
  changed: unknown;
}

/** Day, month and time: the year is in the CSV and in the tooltip (the ISO time). */
const time = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString('en-GB', {
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hour12: false,
      })
    : '—';

function lines(job: JobRecord): string {
  if (job.dryRun) return `${formatNumber(job.total)} (dry run)`;
  // The list is read again when a job starts or ends, so a running row's counts would lag the
  // panel, which shows them live.
  if (job.outcome === 'running') return `${formatNumber(job.total)} lines, in progress`;
  return `${formatNumber(job.sent)} sent · ${formatNumber(job.acknowledged)} done of ${formatNumber(job.total)}`;
}

export function JobHistory({ changed }: JobHistoryProps) {
  const ids = useId();
  const [filters, setFilters] = useState<JobFilters>(NO_FILTERS);
  const history = useJobHistory(filters, changed);
  const set = (change: Partial<JobFilters>) => setFilters((f) => ({ ...f, ...change }));

  return (
    <section className="job-history" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Job history</h2>
      <div className="toolbar job-history__filters">
        <label>
          Outcome{' '}
          <select
            aria-label="Outcome"
            value={filters.outcome}
            onChange={(event) => set({ outcome: event.target.value as JobFilters['outcome'] })}
          >
            <option value="">Any</option>
            <option value="running">running</option>
            {JOB_OUTCOMES.map((outcome) => (
              <option key={outcome} value={outcome}>
                {outcome}
              </option>
            ))}
          </select>
        </label>
        <label>
          Started after{' '}
          <input
            type="datetime-local"
            aria-label="Started after"
            value={filters.since}
            onChange={(event) => set({ since: event.target.value })}
          />
        </label>
        <label>
          Started before{' '}
          <input
            type="datetime-local"
            aria-label="Started before"
            value={filters.until}
            onChange={(event) => set({ until: event.target.value })}
          />
        </label>
        <a className="button" href={`${MACHINE_ROUTES.jobsCsv}?${jobsQueryString(filters, 10_000)}`} download>
          Export CSV
        </a>
      </div>
      {history.problem && <p className="machine__problem">{history.problem}</p>}
      <JobTable jobs={history.jobs} loading={history.loading} labelledBy={`${ids}-title`} />
    </section>
  );
}

/** Each job by number, so a resumed job can name the one it continues. */
const jobNumber = (id: number) => `#${id}`;

/**
 * Five columns, each cell with a muted second line (where, when it ended, how far, why), rather
 * than eleven: a row reads on a laptop and at a narrow width without scrolling sideways to reach
 * the outcome. The CSV export keeps every field in a column of its own.
 */
const COLUMNS = ['Job', 'Program', 'Started', 'Lines', 'Outcome'] as const;

export interface JobTableProps {
  jobs: JobRecord[];
  loading: boolean;
  /** The id of the heading that names the table. */
  labelledBy: string;
}

export function JobTable({ jobs, loading, labelledBy }: JobTableProps) {
  const numbered = new Set(jobs.map((job) => job.id));
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table must be reachable by keyboard to scroll it
    <div className="table-scroll" tabIndex={0}>
      <table className="job-history__table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {jobs.length === 0 && (
            <tr>
              <td colSpan={COLUMNS.length}>{loading ? 'Loading…' : 'No jobs yet.'}</td>
            </tr>
          )}
          {jobs.map((job) => (
            <tr key={job.id} id={`job-${job.id}`} data-outcome={job.outcome}>
              <td>
                {jobNumber(job.id)}
                {job.continues !== null && (
                  <span className="job-history__more">
                    continues{' '}
                    {numbered.has(job.continues) ? (
                      // The continued job is in the list: a link takes the eye to its row.
                      <a href={`#job-${job.continues}`}>{jobNumber(job.continues)}</a>
                    ) : (
                      jobNumber(job.continues)
                    )}
                  </span>
                )}
              </td>
              <td>
                <span title={`SHA-256 ${job.sha256}`}>{job.program ?? 'unnamed program'}</span>
                <span className="job-history__more">
                  {job.profile ?? 'no profile'} · {job.port ?? 'no port'}
                </span>
              </td>
              <td>
                <span title={job.startedAt}>{time(job.startedAt)}</span>
                <span className="job-history__more">
                  {job.endedAt ? <>ended {time(job.endedAt)}</> : 'still running'}
                </span>
              </td>
              <td>
                {lines(job)}
                {job.outcome !== 'running' && !job.dryRun && (
                  <span className="job-history__more">
                    last line {formatNumber(job.lastAcknowledgedLine)}
                  </span>
                )}
              </td>
              <td
                className={`job-history__outcome job-history__outcome--${job.outcome.replaceAll(' ', '-')}`}
              >
                {job.outcome}
                {job.reason && <span className="job-history__more">{job.reason}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
