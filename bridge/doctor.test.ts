// doctor (spec §7): the plain check and the two-pass integrity report with every degraded rule.
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRule } from './fake-host/server.ts';
import { type FakeHost, NOT_RUNNING_URL, startFakeHost } from './fake-host/server.ts';
import { cli, cliInProcess, errorOf, hostEnv } from './testing/run-bridge.ts';

let host: FakeHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function start(seed: string, version = '18.10.0') {
  host = await startFakeHost({ version, seed, token: 'tok' });
  return host;
}

// In-process so that pass 2 follows without the 500 ms pause; the process test below covers the
// real entry's report and exit codes.
async function report(h: Pick<FakeHost, 'url'>) {
  const run = await cliInProcess(['doctor', '--json'], hostEnv(h));
  return { ...run, report: run.stdout ? (JSON.parse(run.stdout) as Record<string, unknown>) : undefined };
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture entity missing');
  return value;
}

const ACTIVE = 'GET /tasks?source=active&includeDone=true';

describe('doctor (plain)', () => {
  it('exits 0 when reachable, 1 when refused, 1 naming UNAUTHORIZED without a token on 18.17', async () => {
    const h = await start('clean');
    const ok = await cli(['doctor'], hostEnv(h));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`host ${h.url}\n`);
    expect(ok.stdout).toContain('token none\n');
    expect(ok.stdout).toMatch(/^health OK /m);
    const locked = await startFakeHost({ version: '18.17.0', token: 'secret' });
    const unauthorized = await cli(['doctor'], hostEnv(locked));
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stdout).toMatch(/^health FAIL UNAUTHORIZED /m);
    await locked.close();
    const withToken = await cli(['doctor', '--deep'], hostEnv(h, 'secret-not-printed'));
    expect(withToken.stdout).toContain('token env\n');
    expect(withToken.stdout).not.toContain('secret-not-printed');
    expect(withToken.stdout).toMatch(/^integrity OK active=4 archived=1 referenced=4$/m);
    await h.close();
    host = undefined;
    const refused = await cli(['doctor'], hostEnv({ url: NOT_RUNNING_URL }));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^health FAIL APP_UNAVAILABLE /m);
  });

  it('refuses usage errors with exit 2 and an empty stdout, with and without --json', async () => {
    const h = await start('clean');
    const cases = [
      ['--foo'],
      ['extra'],
      ['--format', 'json'],
      ['--deep=x'],
      ['--json', '--foo'],
      ['--json', 'extra'],
    ];
    const runs = await Promise.all(cases.map((argv) => cli(['doctor', ...argv], hostEnv(h))));
    for (const [i, argv] of cases.entries()) {
      const run = runs[i] ?? { code: -1, stdout: '', stderr: '' };
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(errorOf(run).code).toBe('INVALID_INPUT');
    }
    expect(h.requests).toEqual([]);
  });
});

describe('doctor --json', () => {
  it('as a process: prints the report and exits 3 on confirmed anomalies, 0 when clean, 1 when unreachable', async () => {
    const anomalies = await startFakeHost({ version: '18.10.0', seed: 'anomalies' });
    const clean = await startFakeHost({ version: '18.10.0', seed: 'clean' });
    try {
      const [warn, ok, down] = await Promise.all([
        cli(['doctor', '--json'], hostEnv(anomalies)),
        cli(['doctor', '--json'], hostEnv(clean)),
        cli(['doctor', '--json'], hostEnv({ url: NOT_RUNNING_URL })),
      ]);
      expect(warn.code, warn.stderr).toBe(3);
      const report = JSON.parse(warn.stdout) as Record<string, unknown>;
      expect(report).toMatchObject({ clean: false, unconfirmed: false });
      expect((report.dangling as string[]).length).toBeGreaterThan(0);
      expect((report.orphaned as string[]).length).toBeGreaterThan(0);
      expect((report.duplicated as string[]).length).toBeGreaterThan(0);
      expect(warn.stderr).toBe('');
      expect(ok).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(ok.stdout)).toMatchObject({ clean: true });
      expect(down).toMatchObject({ code: 1, stdout: '' });
      expect(errorOf(down).message).toMatch(
        /^GET \/tasks\?source=active&includeDone=true: APP_UNAVAILABLE: /,
      );
    } finally {
      await Promise.all([anomalies.close(), clean.close()]);
    }
  });

  it('reports a clean store with exit 0, keys in order and only JSON on stdout', async () => {
    const h = await start('clean');
    const run = await report(h);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `${JSON.stringify(
        {
          activeTasks: 4,
          archivedTasks: 1,
          clean: true,
          dangling: [],
          duplicated: [],
          orphaned: [],
          referenced: 4,
          unconfirmed: false,
          unconfirmedReason: '',
          unresolved: [],
          unverifiable: [],
        },
        null,
        2,
      )}\n`,
    );
    // no anomaly, no second pass: four pulls
    expect(h.requests.map((r) => r.path)).toEqual(['/tasks', '/tasks', '/projects', '/tags']);
  });

  it('confirms dangling, orphaned and duplicated ids (exit 3); archived projects make tasks unverifiable', async () => {
    const h = await start('anomalies');
    const run = await report(h);
    expect(run.code).toBe(3);
    expect(run.report).toMatchObject({
      clean: false,
      dangling: ['ghost1'],
      duplicated: ['t2'],
      orphaned: ['t4'],
      unconfirmed: false,
      unresolved: [],
      unverifiable: ['t7'],
    });
    expect(h.requests).toHaveLength(8);
  });

  it('does not count archive references as dangling or archived tasks and subtasks as orphaned', async () => {
    const h = await start('clean');
    (must(h.store.projects[1]).taskIds as string[]).push('a1'); // a project index naming an archived task
    h.store.archived.set('a2', { ...structuredClone(must(h.store.archived.get('a1'))), id: 'a2' }); // unreferenced archive
    expect((await report(h)).report).toMatchObject({ clean: true, dangling: [], orphaned: [] });
  });

  it('lists only an archived-project task as unverifiable, exit 0', async () => {
    const h = await start('clean');
    h.store.projects.push({
      id: 'gone',
      title: 'Gone',
      taskIds: ['t9'],
      backlogTaskIds: [],
      isArchived: true,
    });
    h.store.active.set('t9', {
      ...structuredClone(must(h.store.active.get('t3'))),
      id: 't9',
      projectId: 'gone',
    });
    // A top-level task may carry parentId: null; it has no parent all the same.
    h.store.active.set('t8', {
      ...structuredClone(must(h.store.active.get('t3'))),
      id: 't8',
      projectId: 'gone',
      parentId: null,
    });
    const run = await report(h);
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({ clean: true, unverifiable: ['t8', 't9'], orphaned: [] });
  });

  it('degrades on missing or malformed indexes of a project, a tag and a task (exit 1)', async () => {
    const cases: [(h: FakeHost) => void, string][] = [
      [() => undefined, 'GET /projects: project work is missing "backlogTaskIds"'],
      [
        (h) => {
          must(h.store.tags[1]).taskIds = 'x';
        },
        'GET /tags: tag urgent has a malformed "taskIds"',
      ],
      [
        (h) => {
          must(h.store.active.get('t1')).subTaskIds = [1];
        },
        `${ACTIVE}: task t1 has a malformed "subTaskIds"`,
      ],
    ];
    for (const [corrupt, reason] of cases) {
      const h = await start('malformed');
      if (!reason.includes('backlogTaskIds')) must(h.store.projects[1]).backlogTaskIds = [];
      corrupt(h);
      h.store.archived.set('t3', structuredClone(must(h.store.active.get('t3')))); // a duplicate is still judged
      const run = await report(h);
      expect(run.code, reason).toBe(1);
      expect(run.report).toMatchObject({
        clean: false,
        dangling: [],
        orphaned: [],
        duplicated: ['t3'],
        referenced: 0,
        activeTasks: 4,
        archivedTasks: 2,
        unconfirmed: true,
        unconfirmedReason: reason,
        unverifiable: [],
      });
      await h.close();
      host = undefined;
    }
  });

  it('names the endpoint when a pull fails or is unusable: stdout empty, exit 1', async () => {
    const faults: [FaultRule, string][] = [
      [
        { method: 'GET', path: '/projects', fault: { type: 'data', data: null } },
        'GET /projects: APP_ERROR: no list in the answer',
      ],
      [
        { method: 'GET', path: '/tags', fault: { type: 'raw', status: 200, body: '' } },
        'GET /tags: APP_ERROR: no list in the answer',
      ],
      [
        {
          method: 'GET',
          path: '/tasks',
          query: { source: 'archived' },
          fault: { type: 'raw', status: 200, body: 'oops' },
        },
        'GET /tasks?source=archived&includeDone=true: APP_ERROR: no list in the answer',
      ],
      [{ method: 'GET', path: '/tasks', fault: { type: 'reset' } }, `${ACTIVE}: APP_UNAVAILABLE: `],
    ];
    for (const [rule, message] of faults) {
      const h = await start('clean');
      h.inject(rule);
      const run = await report(h);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(errorOf(run).message.startsWith(message), errorOf(run).message).toBe(true);
      await h.close();
      host = undefined;
    }
    const refused = await report({ url: NOT_RUNNING_URL });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(errorOf(refused).code).toBe('APP_UNAVAILABLE');
  });

  it('an anomaly seen in one pass only is unresolved (exit 1), beside confirmed ones', async () => {
    const h = await start('clean');
    // The first /tags answer names a task that exists nowhere; the next one (pass 2) is the store's.
    const blip: FaultRule = {
      method: 'GET',
      path: '/tags',
      fault: {
        type: 'data',
        data: [
          { id: 'TODAY', title: 'Today', taskIds: ['blip'] },
          { id: 'urgent', title: 'Urgent', taskIds: ['t1'] },
        ],
      },
    };
    h.inject(blip);
    const run = await report(h);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      dangling: [],
      unconfirmed: true,
      unconfirmedReason: 'anomalies seen in only one of two passes',
      unresolved: [{ category: 'dangling', id: 'blip' }],
    });

    h.store.active.set('lost', { ...structuredClone(must(h.store.active.get('t3'))), id: 'lost' });
    h.inject(blip);
    const both = await report(h);
    expect(both.code).toBe(1);
    expect(both.report).toMatchObject({
      orphaned: ['lost'],
      unresolved: [{ category: 'dangling', id: 'blip' }],
    });
  });

  it('when pass 2 fails every anomaly is unresolved and the reason names the endpoint', async () => {
    const h = await start('anomalies');
    h.inject({ method: 'GET', path: '/projects', skip: 1, fault: { type: 'data', data: null } });
    const run = await report(h);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      dangling: [],
      duplicated: [],
      orphaned: [],
      unconfirmed: true,
      unconfirmedReason: 'GET /projects: APP_ERROR: no list in the answer',
      unresolved: [
        { category: 'dangling', id: 'ghost1' },
        { category: 'duplicated', id: 't2' },
        { category: 'orphaned', id: 't4' },
      ],
      unverifiable: ['t7'],
    });
  });
});
