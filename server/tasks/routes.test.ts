// /api/tasks/* over real HTTP on a real workstation, against the bridge's fake task host.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLocalDate } from '../../bridge/dates.ts';
import { type FakeHost, NOT_RUNNING_URL, startFakeHost } from '../../bridge/fake-host/server.ts';
import { makeTask, TODAY } from '../../bridge/fake-host/store.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { buildLanDoor } from '../lan/door.ts';
import { makeTempDir, startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

const TOKEN = 'tasks-test-token';
const DAY = '2026-03-14';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function fakeHost(options: Parameters<typeof startFakeHost>[0] = {}): Promise<FakeHost> {
  const host = await startFakeHost({ version: '18.17.0', token: TOKEN, today: DAY, ...options });
  cleanups.push(() => host.close());
  return host;
}

async function workstation(url: string, env: Record<string, string> = {}): Promise<TestWorkstation> {
  const home = await makeTempDir();
  const ws = await startTestWorkstation({
    TASK_HOST_URL: url,
    TASK_HOST_TOKEN: TOKEN,
    HOME: home,
    XDG_CONFIG_HOME: home,
    ...env,
  });
  cleanups.push(() => ws.dispose());
  return ws;
}

async function call(ws: TestWorkstation, method: string, path: string, body?: unknown) {
  // State changes are JSON only, with an empty object where there is nothing to send.
  const json = method === 'POST' ? (body ?? {}) : body;
  const response = await fetch(`${ws.urls.lan}${path}`, {
    method,
    ...(json === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
  });
  return { status: response.status, body: await response.json() };
}

function seed(host: FakeHost) {
  const { active } = host.store;
  const tasks = [
    makeTask('wrapMandrel001', 'Wrap mandrel 70 mm', 1, { dueDay: DAY, timeEstimate: 5_400_000 }),
    makeTask('checkCreel0001', 'Check the creel tension', 2, { dueDay: '2026-03-20' }),
    makeTask('cureOven000001', 'Load the cure oven', 3, {
      dueDay: DAY,
      notes: 'After lunch',
      timeSpent: 60_000,
    }),
  ];
  for (const task of tasks) active.set(task.id, task);
  return tasks;
}

describe('/api/tasks', () => {
  it("lists today's tasks (the TODAY filter, compact, no limit) and nothing else", async () => {
    const host = await fakeHost();
    seed(host);
    for (let i = 0; i < 30; i++)
      host.store.active.set(`bulk${i}`, makeTask(`bulk${i}`, `Bulk ${i}`, 10 + i, { dueDay: DAY }));
    const ws = await workstation(host.url);
    const today = await call(ws, 'GET', '/api/tasks/today');
    expect(today.status).toBe(200);
    expect(today.body.items.map((t: { id: string }) => t.id).slice(0, 2)).toEqual([
      'wrapMandrel001',
      'cureOven000001',
    ]);
    expect(today.body.items).toHaveLength(32);
    expect(Object.keys(today.body)).toEqual(['items']);
    expect(today.body.items[1]).toEqual({
      id: 'cureOven000001',
      title: 'Load the cure oven',
      isDone: false,
      projectId: 'INBOX_PROJECT',
      tagIds: [],
      subTaskIds: [],
      timeSpent: 60_000,
      timeEstimate: 0,
      notes: 'After lunch',
      dueDay: DAY,
    });
    const asked = host.requests.filter((r) => r.path === '/tasks');
    expect(asked.at(-1)?.query).toEqual({ tagId: TODAY, includeDone: 'true' });
  });

  it('tracks: current is null, start makes it current, set-current switches, stop-current clears', async () => {
    const host = await fakeHost();
    seed(host);
    const ws = await workstation(host.url);
    expect(await call(ws, 'GET', '/api/tasks/current')).toEqual({ status: 200, body: { task: null } });
    expect(await call(ws, 'POST', '/api/tasks/wrapMandrel001/start')).toEqual({
      status: 200,
      body: { currentTaskId: 'wrapMandrel001' },
    });
    const current = await call(ws, 'GET', '/api/tasks/current');
    expect(current.body.task).toMatchObject({ id: 'wrapMandrel001', timeSpent: 0, timeEstimate: 5_400_000 });
    expect(current.body.task).not.toHaveProperty('timeSpentOnDay');
    expect(await call(ws, 'POST', '/api/tasks/cureOven000001/set-current')).toEqual({
      status: 200,
      body: { currentTaskId: 'cureOven000001' },
    });
    expect(host.store.currentTaskId).toBe('cureOven000001');
    expect(await call(ws, 'POST', '/api/tasks/stop-current')).toEqual({
      status: 200,
      body: { currentTaskId: null },
    });
    expect(host.store.currentTaskId).toBeNull();
  });

  it('completes and reopens a task, answering the task', async () => {
    const host = await fakeHost();
    seed(host);
    const ws = await workstation(host.url);
    const done = await call(ws, 'POST', '/api/tasks/wrapMandrel001/complete');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: 'wrapMandrel001', isDone: true });
    expect(host.store.active.get('wrapMandrel001')?.isDone).toBe(true);
    const today = await call(ws, 'GET', '/api/tasks/today');
    expect(today.body.items.find((t: { id: string }) => t.id === 'wrapMandrel001')).toMatchObject({
      isDone: true,
    });
    const reopened = await call(ws, 'POST', '/api/tasks/wrapMandrel001/uncomplete');
    expect(reopened.body).toMatchObject({ id: 'wrapMandrel001', isDone: false });
  });

  it('creates a task with an estimate in milliseconds or a duration of the bridge spec', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url);
    const created = await call(ws, 'POST', '/api/tasks', {
      title: '  Wind layer 3  ',
      notes: 'helical 45°',
      timeEstimate: '1h30m',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      title: 'Wind layer 3',
      notes: 'helical 45°',
      timeEstimate: 5_400_000,
    });
    expect(host.store.active.get(created.body.id)).toMatchObject({ timeEstimate: 5_400_000 });
    const inMs = await call(ws, 'POST', '/api/tasks', { title: 'Trim ends', timeEstimate: 900_000 });
    expect(inMs.body).toMatchObject({ title: 'Trim ends', timeEstimate: 900_000 });
    const bare = await call(ws, 'POST', '/api/tasks', { title: 'Sweep' });
    expect(bare.body).toMatchObject({ title: 'Sweep', timeEstimate: 0 });
  });

  it("plans a task added here for today, so it appears in today's list", async () => {
    // The task app's own calendar: today as the workstation's clock has it.
    const host = await fakeHost({ today: undefined });
    const ws = await workstation(host.url);
    const created = await call(ws, 'POST', '/api/tasks', { title: 'Wind layer 4' });
    expect(created.status).toBe(201);
    expect(host.store.active.get(created.body.id)?.dueDay).toBe(formatLocalDate(Date.now()));
    const today = await call(ws, 'GET', '/api/tasks/today');
    expect(today.body.items.map((t: { title: string }) => t.title)).toContain('Wind layer 4');
  });

  it('refuses bad input with 400 INVALID_INPUT and sends nothing to the task app', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url);
    const before = host.requests.length;
    const cases: [unknown, string][] = [
      [{}, 'title: is required'],
      [{ title: '   ' }, 'title: must be 1 to 1000 characters after trimming'],
      [
        { title: 'x', timeEstimate: '1.5h' },
        'timeEstimate: must be milliseconds or a duration such as 1h30m, 45m or 1d2h',
      ],
      [
        { title: 'x', timeEstimate: '-5m' },
        'timeEstimate: must be milliseconds or a duration such as 1h30m, 45m or 1d2h',
      ],
      [
        { title: 'x', timeEstimate: true },
        'timeEstimate: must be milliseconds or a duration such as 1h30m, 45m or 1d2h',
      ],
      [{ title: 'x', projectId: 'p' }, 'projectId: unknown field'],
      [[1, 2], 'body: must be a JSON object'],
    ];
    for (const [body, message] of cases) {
      expect(await call(ws, 'POST', '/api/tasks', body), JSON.stringify(body)).toEqual({
        status: 400,
        body: { code: 'INVALID_INPUT', message },
      });
    }
    const badId = await call(ws, 'POST', '/api/tasks/bad%20id/start');
    expect(badId).toEqual({
      status: 400,
      body: { code: 'INVALID_INPUT', message: 'id: must be 1 to 200 characters of A-Z, a-z, 0-9, _ or -' },
    });
    const broken = await fetch(`${ws.urls.lan}/api/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"title":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: 'INVALID_INPUT' });
    expect(host.requests.length).toBe(before);
  });

  it('answers 404 TASK_NOT_FOUND for an unknown task', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url);
    expect(await call(ws, 'POST', '/api/tasks/noSuchTask/complete')).toEqual({
      status: 404,
      body: { code: 'TASK_NOT_FOUND', message: 'Task not found' },
    });
  });
});

describe('/api/tasks when the task app fails', () => {
  it('says plainly that the task app is not running (503)', async () => {
    const ws = await workstation(NOT_RUNNING_URL);
    for (const [method, path] of [
      ['GET', '/api/tasks/today'],
      ['GET', '/api/tasks/current'],
      ['POST', '/api/tasks/stop-current'],
    ] as const) {
      expect(await call(ws, method, path), path).toEqual({
        status: 503,
        body: { code: 'APP_UNAVAILABLE', message: 'The task app is not running' },
      });
    }
  });

  it('says plainly that the token was rejected (502)', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url, { TASK_HOST_TOKEN: 'not-the-token' });
    expect(await call(ws, 'GET', '/api/tasks/today')).toEqual({
      status: 502,
      body: { code: 'UNAUTHORIZED', message: 'The task app rejected the access token' },
    });
  });

  it('answers 504 TIMEOUT for a slow task app and 502 APP_ERROR for an unusable answer', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url, { TASK_HOST_TIMEOUT_MS: '200' });
    host.inject({ method: 'GET', path: '/tasks', fault: { type: 'delay', ms: 2000 } });
    const slow = await call(ws, 'GET', '/api/tasks/today');
    expect(slow).toEqual({
      status: 504,
      body: { code: 'TIMEOUT', message: 'The task host did not answer within 200 ms' },
    });
    host.inject({ method: 'POST', path: '/tasks', fault: { type: 'data', status: 201, data: null } });
    expect(await call(ws, 'POST', '/api/tasks', { title: 'x' })).toEqual({
      status: 502,
      body: { code: 'APP_ERROR', message: 'Host answered success without usable data' },
    });
  });

  it('refuses LAN clients with 403 FORBIDDEN before asking the task app', async () => {
    const host = await fakeHost();
    const ws = await workstation(host.url);
    // light-my-request sets the socket's remote address, which a real client on the LAN would have.
    const app = await buildLanDoor({
      logger: pino({ level: 'silent' }),
      rendererDir: ws.root,
      winding: ws.doors.winding,
      tasks: { TASK_HOST_URL: host.url, TASK_HOST_TOKEN: TOKEN },
    });
    cleanups.push(() => app.close());
    const before = host.requests.length;
    for (const [method, url] of [
      ['GET', '/api/tasks/today'],
      ['GET', '/api/tasks/current'],
      ['POST', '/api/tasks'],
      ['POST', '/api/tasks/abc/start'],
      ['POST', '/api/tasks/stop-current'],
    ] as const) {
      const response = await app.inject({
        method,
        url,
        remoteAddress: '192.168.1.20',
        headers: {
          'x-forwarded-for': '127.0.0.1',
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toEqual({
        code: 'FORBIDDEN',
        message: 'Only the workstation itself may use the task app',
      });
    }
    expect(host.requests.length).toBe(before);
  });
});

describe('task app configuration', () => {
  it('comes from the bridge variables, and a bad one stops start-up naming it', () => {
    expect(loadConfig({ TASK_HOST_URL: 'http://127.0.0.1:3999/' }).tasks.TASK_HOST_URL).toBe(
      'http://127.0.0.1:3999/',
    );
    expect(() => loadConfig({ TASK_HOST_URL: 'ftp://x' })).toThrow(
      new ConfigError('invalid TASK_HOST_URL="ftp://x": TASK_HOST_URL must be an http: or https: URL'),
    );
    expect(() => loadConfig({ TASK_HOST_TOKEN: 'has space' })).toThrow(
      new ConfigError(
        'invalid TASK_HOST_TOKEN: TASK_HOST_TOKEN must contain only printable ASCII characters without spaces',
      ),
    );
    expect(() => loadConfig({ TASK_HOST_TIMEOUT_MS: '0' })).toThrow(
      /^invalid TASK_HOST_TIMEOUT_MS="0": TASK_HOST_TIMEOUT_MS must be an integer from 1 to 600000$/,
    );
  });
});
