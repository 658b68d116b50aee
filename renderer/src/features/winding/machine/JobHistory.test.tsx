// @vitest-environment jsdom
// The job history table: every job by its number, and a resumed job naming the job it continues
// (a link to that row when it is listed, the bare number when a filter hides it).
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '#engine/machine/contract.ts';
import { JobTable } from './JobHistory.tsx';

afterEach(cleanup);

function job(id: number, change: Partial<JobRecord>): JobRecord {
  return {
    id,
    program: 'vessel.gcode',
    sha256: 'ab'.repeat(32),
    dryRun: false,
    profile: 'Winder 1',
    profileId: 1,
    port: '/dev/ttyUSB0',
    startedAt: '2026-11-28T01:00:00.000Z',
    endedAt: '2026-11-28T01:10:00.000Z',
    total: 2000,
    sent: 2000,
    acknowledged: 2000,
    lastAcknowledgedLine: 2010,
    outcome: 'completed',
    reason: null,
    queueDepth: 20,
    continues: null,
    ...change,
  };
}

function cellsOf(row: HTMLElement): Record<string, string> {
  const headers = screen.getAllByRole('columnheader').map((header) => header.textContent ?? '');
  const cells = within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent ?? '');
  return Object.fromEntries(headers.map((header, i) => [header, cells[i] ?? '']));
}

describe('job history table', () => {
  it('names the job a resumed job continues', () => {
    const jobs = [
      job(7, { continues: 5, outcome: 'completed' }),
      job(6, { continues: 2 }),
      job(5, { outcome: 'e-stopped', reason: 'Emergency stop', acknowledged: 900 }),
    ];
    render(
      <>
        <h3 id="title">Job history</h3>
        <JobTable jobs={jobs} loading={false} labelledBy="title" />
      </>,
    );
    const table = screen.getByRole('table', { name: 'Job history' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => cellsOf(row).Job)).toEqual(['#7continues #5', '#6continues #2', '#5']);
    // The outcome's second line is the reason; the lines cell says where the job got to.
    expect(cellsOf(rows[2] as HTMLElement).Outcome).toBe('e-stoppedEmergency stop');
    expect(cellsOf(rows[2] as HTMLElement).Lines).toBe('2,000 sent · 900 done of 2,000last line 2,010');
    // Job 5 is listed: the link leads to its row. Job 2 is not (filtered out): its number alone.
    const link = within(rows[0] as HTMLElement).getByRole('link', { name: '#5' });
    expect(link.getAttribute('href')).toBe('#job-5');
    expect(document.getElementById('job-5')).toBe(rows[2]);
    expect(within(rows[1] as HTMLElement).queryByRole('link')).toBeNull();
  });

  it('says a running job is in progress, not that it sent nothing', () => {
    const running = job(3, {
      outcome: 'running',
      endedAt: null,
      sent: 0,
      acknowledged: 0,
      lastAcknowledgedLine: 0,
    });
    render(
      <>
        <h3 id="title">Job history</h3>
        <JobTable jobs={[running]} loading={false} labelledBy="title" />
      </>,
    );
    const [row] = within(screen.getByRole('table', { name: 'Job history' }))
      .getAllByRole('row')
      .slice(1);
    expect(cellsOf(row as HTMLElement).Lines).toBe('2,000 lines, in progress');
    expect(cellsOf(row as HTMLElement).Started).toMatch(/still running$/);
    expect(cellsOf(row as HTMLElement).Outcome).toBe('running');
  });

  it('says so when there are no jobs, across every column', () => {
    render(<JobTable jobs={[]} loading={false} labelledBy="none" />);
    const cell = screen.getByRole('cell');
    expect(cell.textContent).toBe('No jobs yet.');
    expect(cell.getAttribute('colspan')).toBe(String(screen.getAllByRole('columnheader').length));
  });
});
