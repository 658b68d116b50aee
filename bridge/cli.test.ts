// The CLI face (spec §6): syntax, formats, durations and exit codes. Most runs call main()
// in-process against the fake host; a few spawn the real entry to check the process contract.
process.env.TZ = 'Europe/Berlin';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { runNode } from '../server/testing/process.ts';
import { formatDuration, parseDuration } from './durations.ts';
import { type FakeHost, startFakeHost } from './fake-host/server.ts';
import { makeTask } from './fake-host/store.ts';
import { cli, errorOf, hostEnv } from './testing/run-bridge.ts';

let host: FakeHost;
beforeAll(async () => {
  host = await startFakeHost({ version: '18.10.0', seed: 'clean' });
});
afterAll(() => host.close());
beforeEach(() => {
  host.requests.length = 0;
  host.clearFaults();
});
const env = () => hostEnv(host);

describe('process contract', () => {
  it('prints help on stdout for --help and on stderr (exit 2) without arguments; prints its version', async () => {
    const [help, bare, version] = await Promise.all([
      runNode('bridge/cli.ts', ['--help']),
      runNode('bridge/cli.ts', []),
      runNode('bridge/cli.ts', ['--version']),
    ]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: towpath-bridge <command>');
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toContain('Usage: towpath-bridge <command>');
    expect(version).toMatchObject({ code: 0, stdout: `towpath-bridge ${pkg.version}\n` });
  });

  it('exits with the operation code as a real process', async () => {
    const [ok, failed] = await Promise.all([
      runNode('bridge/cli.ts', ['tasks', 'get', 't1', '--format', 'ids'], { TASK_HOST_URL: host.url }),
      runNode('bridge/cli.ts', ['tasks', 'get', 'zz'], { TASK_HOST_URL: host.url }),
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: 't1\n', stderr: '' });
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(failed.stderr.split('\n')[0] ?? '')).toMatchObject({
      error: { code: 'TASK_NOT_FOUND' },
    });
  });
});

describe('syntax', () => {
  it('refuses unknown commands, flags, missing values, extra positionals and conflicting flags (exit 2)', async () => {
    const cases: [string[], string][] = [
      [['tasks', 'frob'], 'UNKNOWN_OPERATION'],
      [['bogus'], 'UNKNOWN_OPERATION'],
      [['tasks', 'list', '--bogus'], 'INVALID_INPUT'],
      [['tasks', 'list', '--limit'], 'INVALID_INPUT'],
      [['tasks', 'get'], 'INVALID_INPUT'],
      [['tasks', 'get', 't1', 't2'], 'INVALID_INPUT'],
      [['tasks', 'update', 't1', '--done', '--not-done'], 'INVALID_INPUT'],
      [['tasks', 'add', 'x', '--done=true'], 'INVALID_INPUT'],
      [['tasks', 'add', 'x', '-d'], 'INVALID_INPUT'],
      [['status', 'extra'], 'INVALID_INPUT'],
      [['mcp', '--x'], 'INVALID_INPUT'],
    ];
    const runs = await Promise.all(cases.map(([argv]) => cli(argv, env())));
    for (const [i, [argv, code]] of cases.entries()) {
      const run = runs[i] ?? { code: -1, stdout: '', stderr: '' };
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(errorOf(run).code, argv.join(' ')).toBe(code);
    }
    expect(host.requests).toEqual([]);
  });

  it('accepts --x=v, flags anywhere, last-wins values, repeated --tag-id and -- before a dashed title', async () => {
    const run = await cli(
      ['tasks', '--', 'ignored']
        .slice(0, 1)
        .concat(['add', '--notes=a', '--notes', 'b', '--tag-id', 'urgent', '--tag-id=x1', '--', '-dash']),
      env(),
    );
    expect(run.code).toBe(0);
    expect(host.requests[0]?.body).toEqual({ title: '-dash', notes: 'b', tagIds: ['urgent', 'x1'] });
    await cli(
      ['tasks', 'update', 't1', '--title', 'T', '--not-done', '--due-day', 'none', '--due-with-time', 'none'],
      env(),
    );
    expect(host.requests[1]?.body).toEqual({ title: 'T', isDone: false, dueDay: null, dueWithTime: null });
    await cli(['tasks', 'list', '--limit=3', '--tag-id', 'a', '--tag-id', 'urgent', '--include-done'], env());
    expect(host.requests[2]?.query).toEqual({ tagId: 'urgent', includeDone: 'true' });
  });
});

describe('durations', () => {
  it('parses the accepted forms and refuses the rest with exit 2', async () => {
    const good: [string, number][] = [
      ['5400000', 5_400_000],
      ['1d2h', 93_600_000],
      ['1h30m', 5_400_000],
      ['45m', 2_700_000],
      ['90s', 90_000],
      ['90m', 5_400_000],
      ['0', 0],
    ];
    for (const [text, ms] of good) expect(parseDuration(text), text).toBe(ms);
    const bad = ['-5m', '1.5h', '1m1h', '1d2d', 'h', '', '1H', '1 h', '9007199254740992', '104249991375d'];
    for (const text of bad) expect(parseDuration(text), text).toBeUndefined();
    // Through the real CLI too: each refused with exit 2 before any request.
    const runs = await Promise.all(
      bad.slice(0, 7).map((text) => cli(['tasks', 'add', 'x', '--time-estimate', text], env())),
    );
    for (const [i, run] of runs.entries()) {
      expect(run.code, bad[i]).toBe(2);
      expect(run.stdout).toBe('');
      expect(errorOf(run).message).toMatch(/^timeEstimate: /);
    }
    expect(host.requests).toEqual([]);
    await cli(['tasks', 'add', 'x', '--time-estimate', '1d2h', '--time-spent', '90s'], env());
    expect(host.requests.at(-1)?.body).toEqual({ title: 'x', timeEstimate: 93_600_000, timeSpent: 90_000 });
  });

  it('formats durations so that they parse back to whole seconds', () => {
    expect(
      [0, 1, 999, 1000, 5_400_000, 7_805_000, 2_700_000, 90_000_000, 5_400_999].map(formatDuration),
    ).toEqual(['-', '<1s', '<1s', '1s', '1h30m', '2h10m5s', '45m', '25h', '1h30m']);
    for (const ms of [1000, 61_000, 3_600_000, 93_784_000, 123_456_789])
      expect(parseDuration(formatDuration(ms))).toBe(Math.floor(ms / 1000) * 1000);
  });
});

describe('formats', () => {
  beforeAll(() => {
    const s = host.store;
    s.active.set(
      'f1',
      makeTask('f1', 'Due with time', 0, {
        dueWithTime: Date.UTC(2026, 0, 2, 8, 5),
        timeSpent: 5_400_000,
        timeEstimate: 7_200_000,
        projectId: 'fmt',
      }),
    );
    s.active.set(
      'f2',
      makeTask('f2', 'Line\nbreak', 0, { dueDay: '2026-01-03', timeSpent: 500, projectId: 'fmt' }),
    );
    s.active.set('f3', makeTask('f3', 'Done one', 0, { isDone: true, projectId: 'fmt' }));
  });

  it('prints the task table exactly', async () => {
    const run = await cli(
      ['tasks', 'list', '--project-id', 'fmt', '--include-done', '--format', 'table'],
      env(),
    );
    expect(run.stdout).toBe(
      [
        'ID  DONE  TITLE          DUE               SPENT/EST',
        'f1  no    Due with time  2026-01-02 09:05  1h30m/2h',
        'f2  no    "Line\\nbreak"  2026-01-03        <1s/-',
        'f3  yes   Done one       -                 -/-',
        '',
      ].join('\n'),
    );
  });

  it('prints project and tag tables, an empty list as its header, and nothing with trailing spaces', async () => {
    host.store.projects.push({ id: 'p2', title: 'Side', taskIds: [], backlogTaskIds: [], isArchived: false });
    const projects = await cli(['projects', 'list', '--format', 'table'], env());
    expect(projects.stdout).toBe(
      'ID             TITLE  ARCHIVED\nINBOX_PROJECT  Inbox  -\nwork           Work   -\np2             Side   no\n',
    );
    host.store.projects.pop();
    const tags = await cli(['tags', 'list', '--format', 'table'], env());
    expect(tags.stdout).toBe('ID      TITLE\nTODAY   Today\nurgent  Urgent\n');
    const empty = await cli(['tasks', 'list', '--query', 'nothing matches', '--format', 'table'], env());
    expect(empty.stdout).toBe('ID  DONE  TITLE  DUE  SPENT/EST\n');
    expect((await cli(['tags', 'list', '--format', 'ids'], env())).stdout).toBe('TODAY\nurgent\n');
  });

  it('prints a single task as KEY VALUE lines, id and title first, and null as -', async () => {
    const run = await cli(['tasks', 'get', 'f1', '--format', 'table'], env());
    expect(run.stdout).toBe(
      [
        'id              f1',
        'title           Due with time',
        'attachments     -',
        'created         0',
        `dueWithTime     ${Date.UTC(2026, 0, 2, 8, 5)}`,
        'isDone          no',
        'projectId       fmt',
        'subTaskIds      -',
        'tagIds          -',
        'timeEstimate    2h',
        'timeSpent       1h30m',
        'timeSpentOnDay  -',
        '',
      ].join('\n'),
    );
    expect((await cli(['tasks', 'current', '--format', 'table'], env())).stdout).toBe('-\n');
    expect((await cli(['tasks', 'current'], env())).stdout).toBe('null\n');
    expect((await cli(['tasks', 'current', '--format', 'ids'], env())).stdout).toBe('');
    const json = await cli(['tasks', 'get', 'f1'], env());
    expect(json.stdout).toBe(`${JSON.stringify(host.store.active.get('f1'), null, 2)}\n`);
    expect((await cli(['tasks', 'start', 'f1', '--format', 'ids'], env())).stdout).toBe('f1\n');
    expect((await cli(['tasks', 'stop-current', '--format', 'ids'], env())).stdout).toBe('');
  });

  it('ids: an item without an id is APP_ERROR naming its index, exit 1, stdout empty', async () => {
    host.inject({
      method: 'GET',
      path: '/tasks',
      fault: { type: 'data', data: [{ id: 'a' }, { title: 'no id' }] },
    });
    const run = await cli(['tasks', 'list', '--format', 'ids'], env());
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(errorOf(run)).toMatchObject({ code: 'APP_ERROR', message: expect.stringContaining('1') });
  });

  it('refuses format misuse before any request', async () => {
    const cases = [
      ['tasks', 'list', '--full', '--format', 'table'],
      ['tasks', 'list', '--full', '--format', 'ids'],
      ['health', '--format', 'ids'],
      ['status', '--format', 'ids'],
      ['tasks', 'list', '--format', 'xml'],
      ['doctor', '--format', 'json'],
      ['print-config', 'codex', '--format', 'json'],
    ];
    const runs = await Promise.all(cases.map((argv) => cli(argv, env())));
    for (const [i, argv] of cases.entries()) {
      const run = runs[i] ?? { code: -1, stdout: '', stderr: '' };
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
    }
    expect(host.requests).toEqual([]);
    expect((await cli(['status', '--format', 'table'], env())).stdout).toMatch(
      /^currentTask +-\ncurrentTaskId +-\ntaskCount +\d+\n$/,
    );
  });
});
