// The job history over the machine door (real HTTP on loopback, a real SQLite file, the fake
// Marlin on a socat pseudo-terminal pair): a row for every job and dry run with how it ended, the
// filters and the CSV export, and rows a dead machine process left running closed on the next start.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../engine/machine/job-record.ts';
import { type DoorBench, startDoorBench } from '../testing/door-bench.ts';
import { JobHistory } from './job-history.ts';
import { openMachineDatabase } from './machine-db.ts';

const benches: DoorBench[] = [];
afterEach(async () => {
  for (const bench of benches.splice(0)) await bench.dispose();
});

async function bench(ackDelayMs = 0) {
  const b = await startDoorBench({ ackDelayMs });
  benches.push(b);
  return b;
}

const program = (lines: number) =>
  [
    '; Parameters {"mandrel":{"diameter":100}}',
    ...Array.from({ length: lines }, (_, i) => `G0 X${i % 50} A${i}`),
  ].join('\n');

async function jobs(b: DoorBench, query = ''): Promise<JobRecord[]> {
  const answer = await b.call('GET', `/api/machine/jobs${query}`);
  expect(answer.status).toBe(200);
  return answer.body.jobs as JobRecord[];
}

/** The newest row once its job has ended. */
async function ended(b: DoorBench): Promise<JobRecord> {
  let row: JobRecord | undefined;
  await expect
    .poll(
      async () => {
        row = (await jobs(b))[0];
        return row?.outcome;
      },
      { timeout: 15_000 },
    )
    .not.toBe('running');
  return row as JobRecord;
}

describe('the job history', () => {
  it('records a completed job and a dry run with name, digest, port, counts and last acknowledged line', async () => {
    const b = await bench();
    await b.call('POST', '/api/machine/connect', { port: b.pair.near });
    const gcode = program(30);
    const started = await b.call('POST', '/api/machine/job?name=cylinder.gcode', { gcode });
    expect(started.status).toBe(202);
    const row = await ended(b);
    expect(row).toMatchObject({
      program: 'cylinder.gcode',
      sha256: createHash('sha256').update(gcode).digest('hex'),
      dryRun: false,
      profile: null,
      port: b.pair.near,
      total: 30,
      sent: 30,
      acknowledged: 30,
      // The header comment is line 1, so the 30th command is line 31.
      lastAcknowledgedLine: 31,
      outcome: 'completed',
      reason: null,
      queueDepth: 20,
    });
    expect(Date.parse(row.endedAt as string)).toBeGreaterThanOrEqual(Date.parse(row.startedAt));

    // An empty name is no name.
    await b.call('POST', '/api/machine/dry-run?name=', { gcode: program(2) });
    expect((await jobs(b))[0]).toMatchObject({ program: null, dryRun: true });
    const dry = await b.call('POST', '/api/machine/dry-run?name=dry.gcode', { gcode: program(12) });
    expect(dry.body).toEqual({ commands_streamed: 12, total_commands: 12, dry_run: true });
    const [latest] = await jobs(b);
    expect(latest).toMatchObject({
      program: 'dry.gcode',
      dryRun: true,
      outcome: 'completed',
      sent: 0,
      total: 12,
    });
    // Nothing of the dry run reached the controller.
    expect(b.fake.commands).toHaveLength(30);
  });

  it('records a cancelled job and an e-stopped job with their reasons', async () => {
    const b = await bench(3);
    await b.call('POST', '/api/machine/connect', { port: b.pair.near });
    await b.call('POST', '/api/machine/job?name=cancel-me.gcode', { gcode: program(2000) });
    await b.fake.until(() => b.fake.commands.length >= 20, 10_000);
    await b.call('POST', '/api/machine/cancel', {});
    const cancelled = await ended(b);
    expect(cancelled).toMatchObject({
      program: 'cancel-me.gcode',
      outcome: 'cancelled',
      reason: 'Cancelled by the operator',
    });
    expect(cancelled.acknowledged).toBeGreaterThanOrEqual(20);
    expect(cancelled.acknowledged).toBeLessThan(2000);
    // The last acknowledged line is that command's line in the text (one header line before it).
    expect(cancelled.lastAcknowledgedLine).toBe(cancelled.acknowledged + 1);

    const at = b.fake.commands.length;
    await b.call('POST', '/api/machine/job?name=estop-me.gcode', { gcode: program(2000) });
    await b.fake.until(() => b.fake.commands.length >= at + 20, 10_000);
    expect((await b.call('POST', '/api/machine/estop')).status).toBe(200);
    const stopped = await ended(b);
    expect(stopped).toMatchObject({
      program: 'estop-me.gcode',
      outcome: 'e-stopped',
      reason: 'Emergency stop',
    });
    // Where it got to: lines the controller had acknowledged before the stop, not all of them.
    expect(stopped.acknowledged).toBeGreaterThan(0);
    expect(stopped.acknowledged).toBeLessThan(2000);
  });

  it('records M112 typed in the console during a job as an e-stop', async () => {
    const b = await bench(3);
    await b.call('POST', '/api/machine/connect', { port: b.pair.near });
    await b.call('POST', '/api/machine/job?name=console-stop.gcode', { gcode: program(2000) });
    await b.fake.until(() => b.fake.commands.length >= 20, 10_000);
    expect((await b.call('POST', '/api/machine/command', { command: 'M112' })).status).toBe(200);
    expect(await ended(b)).toMatchObject({ program: 'console-stop.gcode', outcome: 'e-stopped' });
  });

  it('records a job whose controller went away as "controller lost"', async () => {
    const b = await bench(3);
    await b.call('POST', '/api/machine/connect', { port: b.pair.near });
    await b.call('POST', '/api/machine/job', { gcode: program(2000) });
    await b.fake.until(() => b.fake.commands.length >= 20, 10_000);
    await b.pair.vanish();
    const lost = await ended(b);
    expect(lost).toMatchObject({ program: null, outcome: 'controller lost' });
    expect(lost.reason).toMatch(/^(Serial port .* closed|No response from the controller)/);
  });

  it('filters by outcome and time, limits, exports CSV, and refuses a bad query with 400', async () => {
    const b = await bench();
    await b.call('POST', '/api/machine/connect', { port: b.pair.near });
    for (const name of ['one.gcode', 'two, "quoted".gcode', '=cmd.gcode']) {
      await b.call('POST', `/api/machine/job?name=${encodeURIComponent(name)}`, { gcode: program(3) });
      await ended(b);
    }
    await b.call('POST', '/api/machine/dry-run?name=dry.gcode', { gcode: program(3) });
    expect((await jobs(b)).map((job) => job.program)).toEqual([
      'dry.gcode',
      '=cmd.gcode',
      'two, "quoted".gcode',
      'one.gcode',
    ]);
    expect((await jobs(b, '?limit=2')).map((job) => job.program)).toEqual(['dry.gcode', '=cmd.gcode']);
    expect(await jobs(b, '?outcome=cancelled')).toEqual([]);
    const first = (await jobs(b)).at(-1) as JobRecord;
    expect(await jobs(b, `?until=${encodeURIComponent(first.startedAt)}`)).toEqual([first]);
    expect(
      await jobs(b, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`),
    ).toEqual([]);

    for (const path of ['/api/machine/jobs.csv?limit=3', '/api/machine/jobs?format=csv&limit=3']) {
      const csv = await b.call('GET', path);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const lines = csv.text.split('\r\n');
      expect(lines[0]).toBe(
        'id,program,sha256,dryRun,profile,port,startedAt,endedAt,sent,acknowledged,total,lastAcknowledgedLine,outcome,reason,continues',
      );
      expect(lines).toHaveLength(5);
      // A dry run while connected names the port it would have used.
      expect(lines[1]).toMatch(/^\d+,dry\.gcode,[0-9a-f]{64},true,,[^,]+\/host,/);
      // A name that starts like a formula is written as text; quotes and commas are quoted.
      expect(lines[2]).toMatch(/^\d+,'=cmd\.gcode,/);
      expect(lines[3]).toContain(',"two, ""quoted"".gcode",');
      expect(lines[3]).toMatch(/,3,3,3,4,completed,,$/);
    }

    const bad: [string, string][] = [
      [
        '?outcome=exploded',
        'Invalid query: outcome: must be one of completed, cancelled, e-stopped, failed, controller lost, machine process died, running',
      ],
      ['?since=yesterday', 'Invalid query: since: must be a date and time (ISO 8601)'],
      ['?limit=0', 'Invalid query: limit: must be at least 1'],
      ['?limit=ten', 'Invalid query: limit: must be a number'],
      ['?format=xml', 'Invalid query: format: must be json or csv'],
    ];
    for (const [query, detail] of bad) {
      expect(await b.call('GET', `/api/machine/jobs${query}`)).toMatchObject({
        status: 400,
        body: { detail },
      });
    }
  });

  it('closes rows a dead machine process left running as "machine process died", at its last write', async () => {
    const b = await bench();
    const history = new JobHistory(b.database, () => new Date('2026-01-01T10:00:00.000Z'));
    const id = history.start({
      program: 'cut-off.gcode',
      sha256: 'a'.repeat(64),
      dryRun: false,
      profileId: null,
      profile: null,
      port: '/dev/ttyUSB0',
      total: 500,
      queueDepth: 20,
    });
    const later = new JobHistory(b.database, () => new Date('2026-01-01T10:05:00.000Z'));
    later.progress(id, { sent: 130, acknowledged: 120, lastAcknowledgedLine: 125 });
    // The next machine process opens the same file.
    const reopened = openMachineDatabase(b.dataDir);
    try {
      const next = new JobHistory(reopened, () => new Date('2026-01-01T11:00:00.000Z'));
      expect(next.closeAbandoned()).toBe(1);
      expect(next.get(id)).toMatchObject({
        outcome: 'machine process died',
        startedAt: '2026-01-01T10:00:00.000Z',
        endedAt: '2026-01-01T10:05:00.000Z',
        sent: 130,
        acknowledged: 120,
        lastAcknowledgedLine: 125,
        reason:
          'The machine process ended while the job ran; found when the next one started at 2026-01-01T11:00:00.000Z',
      });
      // Closed once: a later start finds nothing to close, and an end arriving late changes nothing.
      expect(next.closeAbandoned()).toBe(0);
      next.end(id, {
        outcome: 'completed',
        reason: null,
        sent: 500,
        acknowledged: 500,
        lastAcknowledgedLine: 505,
      });
      expect(next.get(id)?.outcome).toBe('machine process died');
    } finally {
      reopened.close();
    }
  });
});
