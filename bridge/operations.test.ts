// The 16 operations through the MCP face (callTool, in-process) and the CLI face (main, in-process)
// against the fake host over real HTTP, on both host generations.
process.env.TZ = 'Europe/Berlin';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHostSettings } from './config.ts';
import { type FakeHost, startFakeHost } from './fake-host/server.ts';
import { HostClient } from './host.ts';
import { callTool } from './mcp.ts';
import { cli, errorOf, hostEnv, toolOutcome } from './testing/run-bridge.ts';

const TOKEN = 'tok-123';

for (const version of ['18.10.0', '18.17.0']) {
  describe(`operations against host ${version}`, () => {
    let host: FakeHost;
    let client: HostClient;

    beforeEach(async () => {
      host = await startFakeHost({ version, token: TOKEN, seed: 'clean' });
      const env = hostEnv(host, TOKEN);
      client = new HostClient(parseHostSettings(env), env);
    });
    afterEach(() => host.close());

    async function call(name: string, args?: unknown) {
      const result = await callTool(name, args, client);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      // Error results carry no structured content; success results say the same in text.
      if (result.isError) expect(result.structuredContent).toBeUndefined();
      else expect(JSON.parse(text)).toEqual(result.structuredContent);
      return toolOutcome(result);
    }

    const sent = () =>
      host.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }));
    const env = () => hostEnv(host, TOKEN);

    it('each operation sends exactly its method, path, query and body and returns its shape', async () => {
      const cases: [
        string,
        unknown,
        { method: string; path: string; query?: object; body?: unknown }[],
        unknown,
      ][] = [
        [
          'get_status',
          {},
          [{ method: 'GET', path: '/status' }],
          { currentTask: null, currentTaskId: null, taskCount: 4 },
        ],
        [
          'get_task',
          { id: 't2' },
          [{ method: 'GET', path: '/tasks/t2' }],
          expect.objectContaining({ id: 't2' }),
        ],
        ['start_task', { id: 't2' }, [{ method: 'POST', path: '/tasks/t2/start' }], { currentTaskId: 't2' }],
        [
          'get_current_task',
          {},
          [{ method: 'GET', path: '/task-control/current' }],
          { task: expect.objectContaining({ id: 't2' }) },
        ],
        ['stop_current_task', {}, [{ method: 'POST', path: '/task-control/stop' }], { currentTaskId: null }],
        [
          'set_current_task',
          { taskId: 't3' },
          [{ method: 'POST', path: '/task-control/current', body: { taskId: 't3' } }],
          { currentTaskId: 't3' },
        ],
        [
          'complete_task',
          { id: 't3' },
          [{ method: 'PATCH', path: '/tasks/t3', body: { isDone: true } }],
          expect.objectContaining({ id: 't3', isDone: true, doneOn: expect.any(Number) }),
        ],
        [
          'uncomplete_task',
          { id: 't3' },
          [{ method: 'PATCH', path: '/tasks/t3', body: { isDone: false } }],
          expect.not.objectContaining({ doneOn: expect.anything() }),
        ],
        [
          'update_task',
          { id: 't3', notes: 'n', timeEstimate: 60_000 },
          [{ method: 'PATCH', path: '/tasks/t3', body: { notes: 'n', timeEstimate: 60_000 } }],
          expect.objectContaining({ id: 't3', notes: 'n', timeEstimate: 60_000 }),
        ],
        [
          'archive_task',
          { id: 't3' },
          [
            { method: 'GET', path: '/tasks/t3' },
            { method: 'POST', path: '/tasks/t3/archive' },
          ],
          { archived: true, id: 't3' },
        ],
        [
          'restore_task',
          { id: 't3' },
          [{ method: 'POST', path: '/tasks/t3/restore' }],
          { restored: true, id: 't3' },
        ],
        ['list_projects', {}, [{ method: 'GET', path: '/projects' }], { items: expect.any(Array) }],
        [
          'list_tags',
          { query: 'urg' },
          [{ method: 'GET', path: '/tags', query: { query: 'urg' } }],
          { items: [{ id: 'urgent', title: 'Urgent' }] },
        ],
        ['list_tasks', {}, [{ method: 'GET', path: '/tasks' }], { items: expect.any(Array) }],
        [
          'create_task',
          { title: '  Spool  ' },
          [{ method: 'POST', path: '/tasks', body: { title: 'Spool' } }],
          expect.objectContaining({ title: 'Spool', projectId: 'INBOX_PROJECT', isDone: false, tagIds: [] }),
        ],
      ];
      for (const [tool, args, requests, shape] of cases) {
        host.requests.length = 0;
        const result = await call(tool, args);
        expect(result.error, tool).toBeUndefined();
        expect(result.data, tool).toEqual(shape);
        expect(sent(), tool).toEqual(requests.map((r) => ({ query: {}, body: undefined, ...r })));
      }
      host.requests.length = 0;
      expect((await call('health', {})).data).toEqual({
        hostUrl: host.url,
        server: 'up',
        rendererReady: true,
        tokenSource: 'env',
        taskCount: 5,
        currentTaskId: null,
      });
      expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /health', 'GET /status']);
      // No POST carries a body unless it has one (§3.2), and no request carries an Origin.
      for (const request of host.requests) expect(request.headers.origin).toBeUndefined();
    });

    it('create: subtasks, refused combinations, projectId null and ISO plannedAt', async () => {
      const sub = await call('create_task', { title: 'Sub', parentId: 't1' });
      expect(sub.data).toMatchObject({ parentId: 't1', projectId: 'work', tagIds: [] });
      expect(host.store.active.get('t1')?.subTaskIds).toContain(sub.data?.id);
      host.requests.length = 0;
      for (const bad of [
        { title: 'x', parentId: 't1', projectId: 'work' },
        { title: 'x', parentId: 't1', tagIds: [] },
        { title: 'x', dueDay: '2026-01-01', dueWithTime: 5 },
      ]) {
        const { error } = await call('create_task', bad);
        expect(error?.code).toBe('INVALID_INPUT');
      }
      expect(host.requests).toEqual([]);
      await call('create_task', { title: 'x', projectId: null, plannedAt: '2026-03-01T10:30' });
      await call('create_task', { title: 'y', plannedAt: '2026-03-01T10:30:00.000+02:00' });
      await call('create_task', { title: 'z', plannedAt: '2026-07-01' });
      expect(sent().map((r) => r.body)).toEqual([
        { title: 'x', plannedAt: Date.UTC(2026, 2, 1, 9, 30) },
        { title: 'y', plannedAt: Date.UTC(2026, 2, 1, 8, 30) },
        { title: 'z', plannedAt: Date.UTC(2026, 5, 30, 22, 0) },
      ]);
    });

    it('update: only given keys; parentId, nothing, projectId null refused; unknown id', async () => {
      const refusals = [
        [{ id: 't1', parentId: 't2' }, 'parentId: unknown field'],
        [{ id: 't1' }, 'Nothing to update'],
        [
          { id: 't1', projectId: null },
          'projectId cannot be cleared; move the task to another project (e.g. INBOX_PROJECT)',
        ],
      ] as const;
      for (const [args, message] of refusals)
        expect((await call('update_task', args)).error).toMatchObject({ code: 'INVALID_INPUT', message });
      expect(host.requests).toEqual([]);
      await call('update_task', { id: 't1', dueDay: null, tagIds: [] });
      expect(sent()[0]?.body).toEqual({ dueDay: null, tagIds: [] });
      expect((await call('update_task', { id: 'nope', title: 'x' })).error).toMatchObject({
        code: 'TASK_NOT_FOUND',
        details: { status: 404 },
      });
    });

    it('tracking: start replaces the current task, set_current null clears it, get_current follows', async () => {
      await call('start_task', { id: 't1' });
      await call('start_task', { id: 't2' });
      expect((await call('get_current_task')).data).toEqual({ task: expect.objectContaining({ id: 't2' }) });
      expect((await call('set_current_task', { taskId: null })).data).toEqual({ currentTaskId: null });
      expect((await call('get_current_task')).data).toEqual({ task: null });
      expect(host.store.currentTaskId).toBeNull();
    });

    it('restore brings a task back; an unknown one is TASK_NOT_FOUND', async () => {
      await call('restore_task', { id: 'a1' });
      expect((await call('get_task', { id: 'a1' })).data).toMatchObject({ id: 'a1' });
      expect((await call('restore_task', { id: 'zz' })).error).toMatchObject({
        code: 'TASK_NOT_FOUND',
        message: 'Task not found in archive',
      });
    });

    it('health: renderer not ready is APP_NOT_READY with the health answer', async () => {
      host.options.rendererReady = false;
      expect((await call('health')).error).toMatchObject({
        code: 'APP_NOT_READY',
        details: { status: 503, health: { server: 'up', rendererReady: false } },
      });
    });

    it('delete does not exist on either face', async () => {
      expect((await call('delete_task', { id: 't1' })).error).toEqual({
        code: 'UNSUPPORTED_OPERATION',
        message: 'Deleting tasks is not supported; archive the task instead',
      });
      const run = await cli(['tasks', 'delete', 't1'], env());
      expect(run).toMatchObject({ code: 2, stdout: '' });
      expect(errorOf(run).code).toBe('UNSUPPORTED_OPERATION');
      expect(host.requests).toEqual([]);
    });

    describe('archive guard', () => {
      it('archives an active task with one GET and one POST', async () => {
        expect((await call('archive_task', { id: 't2' })).data).toEqual({ archived: true, id: 't2' });
        expect(host.store.archived.has('t2')).toBe(true);
      });

      it('refuses unknown and already archived ids without any POST', async () => {
        for (const id of ['never', 'a1']) {
          expect((await call('archive_task', { id })).error).toEqual({
            code: 'TASK_NOT_FOUND',
            message:
              'Task is not in the active list, so it was not archived. It may already be archived, or it may never have existed.',
            details: { id },
          });
        }
        expect(host.requests.filter((r) => r.method === 'POST')).toEqual([]);
        expect(host.store.phantomDamage).toBe(false);
        const run = await cli(['tasks', 'archive', 'never'], env());
        expect(run.code).toBe(1);
        expect(errorOf(run).code).toBe('TASK_NOT_FOUND');
      });

      it('passes probe failures through unchanged and never archives on them', async () => {
        const probes = [
          [{ type: 'reset' }, 'APP_UNAVAILABLE'],
          [{ type: 'raw', status: 404, body: 'Not Found', contentType: 'text/plain' }, 'APP_ERROR'],
          [{ type: 'data', data: null }, 'APP_ERROR'],
          [{ type: 'data', data: { id: 't1' } }, 'APP_ERROR'],
          [{ type: 'error', status: 404, code: 'NOT_FOUND', message: 'Route not found' }, 'NOT_FOUND'],
        ] as const;
        for (const [fault, code] of probes) {
          host.inject({ method: 'GET', path: '/tasks/{id}', fault });
          const { error } = await call('archive_task', { id: 't2' });
          expect(error?.code).toBe(code);
          if (fault.type === 'data')
            expect(error?.message).toBe(
              'The host did not confirm that task t2 exists; nothing was archived.',
            );
        }
        host.inject({ method: 'GET', path: '/tasks/{id}', fault: { type: 'delay', ms: 300 } });
        const slowEnv = hostEnv(host, TOKEN, { TASK_HOST_TIMEOUT_MS: '100' });
        const slow = await callTool(
          'archive_task',
          { id: 't2' },
          new HostClient(parseHostSettings(slowEnv), slowEnv),
        );
        expect(slow.content[0]).toMatchObject({ text: expect.stringContaining('"code":"TIMEOUT"') });
        expect(host.requests.filter((r) => r.method === 'POST')).toEqual([]);
        expect(host.store.active.has('t2')).toBe(true);
      });
    });

    describe('lists', () => {
      it('sends filters only when set and never paging keys', async () => {
        await call('list_tasks', { query: '', limit: 5, offset: 1, full: true });
        await call('list_tasks', {
          query: 'wind',
          projectId: 'work',
          tagId: 'TODAY',
          includeDone: true,
          source: 'all',
        });
        await call('list_tasks', { source: 'archived' });
        await call('list_tasks', { source: 'archived', includeDone: false });
        await call('list_tasks', { source: 'active' });
        await call('list_projects', { limit: 1, offset: 0, full: false });
        expect(sent().map((r) => r.query)).toEqual([
          {},
          { query: 'wind', projectId: 'work', tagId: 'TODAY', includeDone: 'true', source: 'all' },
          { includeDone: 'true', source: 'archived' },
          { source: 'archived' },
          {},
          {},
        ]);
      });

      it('projects compactly in order without adding keys; full returns the host entities', async () => {
        const t3 = host.store.active.get('t3');
        if (t3) t3.dueDay = null;
        const compact = (await call('list_tasks', { query: 'creel' })).data?.items as Record<
          string,
          unknown
        >[];
        expect(Object.keys(compact[0] ?? {})).toEqual([
          'id',
          'title',
          'isDone',
          'projectId',
          'tagIds',
          'subTaskIds',
          'timeSpent',
          'timeEstimate',
          'dueDay',
        ]);
        const full = (await call('list_tasks', { query: 'creel', full: true })).data?.items;
        expect(full).toEqual([JSON.parse(JSON.stringify(host.store.active.get('t3')))]);
        const projects = (await call('list_projects')).data?.items;
        expect(projects).toEqual([
          { id: 'INBOX_PROJECT', title: 'Inbox' },
          { id: 'work', title: 'Work' },
        ]);
      });

      it('pages 50 tasks: MCP caps at 20 by default, the CLI does not', async () => {
        const big = await startFakeHost({ version, token: TOKEN, seed: 'big:50' });
        try {
          const bigEnv = hostEnv(big, TOKEN);
          const bigClient = new HostClient(parseHostSettings(bigEnv), bigEnv);
          const first = await callTool('list_tasks', {}, bigClient);
          expect(first.structuredContent).toMatchObject({ truncated: true, returned: 20, matched: 50 });
          expect((first.structuredContent?.items as unknown[] | undefined)?.length).toBe(20);
          expect(first.content[1]).toEqual({
            type: 'text',
            text: 'truncated, showing 20 of 50 matching items',
          });
          const all = await callTool('list_tasks', { limit: 100_000 }, bigClient);
          expect(Object.keys(all.structuredContent ?? {})).toEqual(['items']);
          expect((all.structuredContent?.items as unknown[] | undefined)?.length).toBe(50);
          expect(all.content).toHaveLength(1);
          const tail = await callTool('list_tasks', { offset: 40, limit: 20 }, bigClient);
          expect(Object.keys(tail.structuredContent ?? {})).toEqual(['items']);
          expect((tail.structuredContent?.items as unknown[] | undefined)?.length).toBe(10);

          const cliAll = await cli(['tasks', 'list'], bigEnv);
          expect(JSON.parse(cliAll.stdout)).toHaveLength(50);
          expect(cliAll.stderr).toBe('');
          for (const format of ['json', 'table', 'ids']) {
            const run = await cli(['tasks', 'list', '--limit', '5', '--format', format], bigEnv);
            expect(run.code).toBe(0);
            expect(run.stderr).toBe('truncated, showing 5 of 50 matching items\n');
            if (format === 'ids') expect(run.stdout.trim().split('\n')).toHaveLength(5);
          }
        } finally {
          await big.close();
        }
      });
    });

    it('hostile input is INVALID_INPUT naming the field, with no request, on both faces', async () => {
      const cases: [string, unknown, string][] = [
        ['get_task', { id: 't1', extra: 1 }, 'extra'],
        ['list_tasks', { limit: '5' }, 'limit'],
        ['list_tasks', { full: 1 }, 'full'],
        ['get_task', ['t1'], 'arguments'],
        ['get_status', null, 'arguments'],
        ['create_task', { title: '   ' }, 'title'],
        ['create_task', { title: 'x'.repeat(1001) }, 'title'],
        ['create_task', { title: 'x', notes: 'n'.repeat(100_001) }, 'notes'],
        ['get_task', { id: 'a/b' }, 'id'],
        ['get_task', { id: 'a'.repeat(201) }, 'id'],
        ['list_tasks', { limit: 0 }, 'limit'],
        ['list_tasks', { limit: 100_001 }, 'limit'],
        ['list_tasks', { limit: 1.5 }, 'limit'],
        ['list_tasks', { offset: -1 }, 'offset'],
        ['list_tasks', { offset: 100_001 }, 'offset'],
        ['list_tasks', { source: 'trash' }, 'source'],
        ['create_task', { title: 'x', dueDay: '2026-02-30' }, 'dueDay'],
        ['create_task', { title: 'x', plannedAt: '2026-13-01' }, 'plannedAt'],
        ['create_task', { title: 'x', plannedAt: -1 }, 'plannedAt'],
        ['create_task', { title: 'x', timeEstimate: -5 }, 'timeEstimate'],
        ['create_task', { title: 'x', tagIds: ['a', 'a'] }, 'tagIds'],
        ['create_task', { title: 'x', dueDay: '2026-01-01', dueWithTime: 1 }, 'dueWithTime'],
        ['get_status', { x: 1 }, 'x'],
        ['set_current_task', {}, 'taskId'],
      ];
      for (const [tool, args, field] of cases) {
        const { error } = await call(tool, args);
        expect(error?.code, `${tool} ${JSON.stringify(args).slice(0, 50)}`).toBe('INVALID_INPUT');
        expect(error?.message.startsWith(`${field}: `), error?.message).toBe(true);
        expect(error?.details?.issues).toEqual(
          expect.arrayContaining([expect.objectContaining({ path: field })]),
        );
      }
      const cliCases = [
        ['tasks', 'list', '--limit', '0'],
        ['tasks', 'list', '--limit', '1.5'],
        ['tasks', 'list', '--offset', '-1'],
        ['tasks', 'add', 'x', '--due-day', '2026-02-30'],
        ['tasks', 'add', 'x', '--time-estimate', '-5m'],
        ['tasks', 'add', 'x'.repeat(1001)],
        ['tasks', 'get', 'a/b'],
        ['tasks', 'list', '--source', 'trash'],
        ['tasks', 'add', 'x', '--planned-at', 'tomorrow'],
      ];
      // Real processes, run side by side: none of them may reach the host.
      const runs = await Promise.all(cliCases.map((argv) => cli(argv, env())));
      for (const [i, run] of runs.entries()) {
        const argv = cliCases[i] ?? [];
        expect(run.code, argv.join(' ')).toBe(2);
        expect(run.stdout).toBe('');
        expect(errorOf(run).code).toBe('INVALID_INPUT');
      }
      expect(host.requests).toEqual([]);
    });
  });
}
