// Error classification (spec §5.2) and configuration (§2) through both faces against the fake host.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BridgeEnv } from './config.ts';
import { parseHostSettings } from './config.ts';
import { FAULTS, type FakeHost, type Fault, NOT_RUNNING_URL, startFakeHost } from './fake-host/server.ts';
import { HostClient } from './host.ts';
import { callTool } from './mcp.ts';
import { cli, errorOf, hostEnv, isolatedEnv, toolOutcome } from './testing/run-bridge.ts';

const TOKEN = 'tok-123';

async function mcpError(tool: string, args: unknown, env: BridgeEnv) {
  return toolOutcome(await callTool(tool, args, new HostClient(parseHostSettings(env), env)));
}

for (const version of ['18.10.0', '18.17.0']) {
  describe(`error rules against host ${version}`, () => {
    let host: FakeHost;
    beforeEach(async () => {
      host = await startFakeHost({ version, token: TOKEN, seed: 'clean' });
    });
    afterEach(() => host.close());
    const env = (extra: BridgeEnv = {}) => hostEnv(host, TOKEN, extra);

    it('refused and reset connections are APP_UNAVAILABLE (CLI exit 1)', async () => {
      const refusedEnv = isolatedEnv({ TASK_HOST_URL: NOT_RUNNING_URL, TASK_HOST_TOKEN: TOKEN });
      expect((await mcpError('get_task', { id: 't1' }, refusedEnv)).error).toEqual({
        code: 'APP_UNAVAILABLE',
        message: `Cannot connect to the task host at ${NOT_RUNNING_URL}. Is Super Productivity running with its local REST API enabled?`,
      });
      const refused = await cli(['tasks', 'get', 't1'], refusedEnv);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(errorOf(refused).code).toBe('APP_UNAVAILABLE');
      host.inject({ method: 'GET', path: '/tasks/{id}', fault: { type: 'reset' } });
      expect((await mcpError('get_task', { id: 't1' }, env())).error?.code).toBe('APP_UNAVAILABLE');
    });

    it('a delay past the time-out is TIMEOUT; a PATCH adds the may-have-applied note', async () => {
      host.inject({ method: 'GET', path: '/tasks/{id}', fault: { type: 'delay', ms: 400 } });
      host.inject({ method: 'PATCH', path: '/tasks/{id}', fault: { type: 'delay', ms: 400 } });
      const quick = env({ TASK_HOST_TIMEOUT_MS: '100' });
      expect((await mcpError('get_task', { id: 't1' }, quick)).error).toEqual({
        code: 'TIMEOUT',
        message: 'The task host did not answer within 100 ms',
      });
      const run = await cli(['tasks', 'complete', 't1'], quick);
      expect(run.code).toBe(1);
      expect(errorOf(run)).toEqual({
        code: 'TIMEOUT',
        message: 'The task host did not answer within 100 ms; the change may or may not have been applied',
      });
    });

    it('host error envelopes pass through with status and host details', async () => {
      const found = await mcpError('get_task', { id: 'nope' }, env());
      expect(found.error).toEqual({
        code: 'TASK_NOT_FOUND',
        message: 'Task not found',
        details: { status: 404 },
      });
      const passThrough: [Fault, string][] = [
        [{ type: 'error', status: 404, code: 'NOT_FOUND', message: 'Route not found' }, 'NOT_FOUND'],
        [{ type: 'error', status: 400, code: 'UNSUPPORTED_FIELD', message: 'no' }, 'UNSUPPORTED_FIELD'],
        [{ type: 'error', status: 504, code: 'RENDERER_TIMEOUT', message: 'slow' }, 'RENDERER_TIMEOUT'],
        [{ type: 'error', status: 418, code: 'BRAND_NEW_CODE', message: 'new' }, 'BRAND_NEW_CODE'],
        [{ type: 'error', status: 403, code: 'FORBIDDEN', message: 'Invalid Host header' }, 'FORBIDDEN'],
        [{ type: 'error', status: 429, code: 'TOO_MANY_REQUESTS', message: 'busy' }, 'TOO_MANY_REQUESTS'],
        [{ type: 'error', status: 503, code: 'API_DISABLED', message: 'off' }, 'API_DISABLED'],
        [
          { type: 'error', status: 400, code: 'INVALID_REQUEST_BODY', message: 'bad' },
          'INVALID_REQUEST_BODY',
        ],
        [{ type: 'error', status: 500, code: 'INTERNAL_ERROR', message: 'boom' }, 'INTERNAL_ERROR'],
        [{ type: 'error', status: 200, code: 'APP_NOT_READY', message: 'wait' }, 'APP_NOT_READY'],
      ];
      for (const [fault, code] of passThrough) {
        host.inject({ method: 'GET', path: '/tasks/{id}', fault });
        const { error } = await mcpError('get_task', { id: 't1' }, env());
        expect(error).toEqual({
          code,
          message: (fault as { message: string }).message,
          details: { status: (fault as { status: number }).status },
        });
      }
      const details = [{ path: '$input.timeEstimate', expected: 'number' }];
      host.inject({
        method: 'PATCH',
        path: '/tasks/{id}',
        fault: { type: 'error', status: 400, code: 'INVALID_INPUT', message: 'Invalid input', details },
      });
      expect((await mcpError('update_task', { id: 't1', notes: 'x' }, env())).error).toEqual({
        code: 'INVALID_INPUT',
        message: 'Invalid input',
        details: { status: 400, hostDetails: details },
      });
    });

    it('answers without an envelope or with a contradictory one are APP_ERROR with the status', async () => {
      const cases: [Fault, string][] = [
        [FAULTS.bare404, 'Host answered HTTP 404 without an error envelope'],
        [
          { type: 'raw', status: 500, body: '<html>oops</html>' },
          'Host answered HTTP 500 without an error envelope',
        ],
        [{ type: 'raw', status: 500, body: '' }, 'Host answered HTTP 500 without an error envelope'],
        [FAULTS.okTrue500, 'Host answered HTTP 500 with ok:true'],
        [
          { type: 'raw', status: 302, body: '', contentType: 'text/plain' },
          'Host answered HTTP 302 without an error envelope',
        ],
      ];
      for (const [fault, message] of cases) {
        host.inject({ method: 'GET', path: '/tasks', fault });
        const { error } = await mcpError('list_tasks', {}, env());
        expect(error).toEqual({
          code: 'APP_ERROR',
          message,
          details: { status: (fault as { status: number }).status },
        });
      }
      const run = await cli(['tasks', 'list'], env());
      expect(run.code).toBe(0);
    });

    it('success without usable data never confirms existence', async () => {
      const noData: Fault[] = [
        FAULTS.empty,
        FAULTS.nonJson,
        { type: 'data', data: null },
        { type: 'raw', status: 200, body: '[1,2]' },
      ];
      for (const fault of noData) {
        host.inject({ method: 'GET', path: '/tasks/{id}', fault });
        host.inject({ method: 'GET', path: '/tasks', fault });
        host.inject({ method: 'GET', path: '/task-control/current', fault });
        const unusable = { code: 'APP_ERROR', message: 'Host answered success without usable data' };
        expect((await mcpError('get_task', { id: 't1' }, env())).error).toEqual(unusable);
        expect((await mcpError('list_tasks', {}, env())).error).toEqual(unusable);
        expect((await mcpError('get_current_task', {}, env())).data).toEqual({ task: null });
      }
      host.inject({
        method: 'GET',
        path: '/tasks/{id}',
        fault: {
          type: 'raw',
          status: 200,
          body: '{"ok":false,"error":{"code":"TASK_NOT_FOUND","message":"gone"}}',
        },
      });
      expect((await mcpError('get_task', { id: 't1' }, env())).error).toEqual({
        code: 'TASK_NOT_FOUND',
        message: 'gone',
        details: { status: 200 },
      });
    });

    it('sends no Origin and does not follow redirects', async () => {
      host.inject({ method: 'GET', path: '/status', fault: { type: 'raw', status: 302, body: '' } });
      expect((await mcpError('get_status', {}, env())).error?.code).toBe('APP_ERROR');
      expect(host.requests.map((r) => r.path)).toEqual(['/status']);
      expect(host.requests[0]?.headers.origin).toBeUndefined();
      expect(host.requests[0]?.headers['user-agent']).toMatch(/^towpath-bridge\//);
      expect(host.requests[0]?.headers.accept).toBe('application/json');
      expect(host.requests[0]?.headers['content-type']).toBeUndefined();
    });
  });
}

describe('configuration and tokens', () => {
  let host: FakeHost;
  beforeEach(async () => {
    host = await startFakeHost({ version: '18.17.0', token: TOKEN, seed: 'clean' });
  });
  afterEach(() => host.close());
  const auth = () => host.requests.at(-1)?.headers.authorization;

  it('takes the token from the environment, the Linux file, then the Flatpak file; skips unusable files', async () => {
    const env = hostEnv(host, TOKEN);
    expect((await cli(['status'], env)).code).toBe(0);
    expect(auth()).toBe(`Bearer ${TOKEN}`);

    const home = isolatedEnv({ TASK_HOST_URL: host.url });
    const flatpak = join(
      home.HOME ?? '',
      '.var/app/com.super_productivity.SuperProductivity/config/superProductivity',
    );
    mkdirSync(flatpak, { recursive: true });
    writeFileSync(join(flatpak, 'local-rest-api-token'), `${TOKEN}\n`);
    const health = await cli(['health'], home);
    expect(JSON.parse(health.stdout)).toMatchObject({ tokenSource: 'file' });
    expect(auth()).toBe(`Bearer ${TOKEN}`);

    const linux = join(home.XDG_CONFIG_HOME ?? '', 'superProductivity');
    mkdirSync(linux, { recursive: true });
    writeFileSync(join(linux, 'local-rest-api-token'), 'bad token with spaces');
    expect((await cli(['status'], home)).code).toBe(0);
    expect(auth()).toBe(`Bearer ${TOKEN}`); // unusable Linux file skipped, Flatpak used
    writeFileSync(join(linux, 'local-rest-api-token'), '  other-token  ');
    const rejected = await cli(['status'], home);
    expect(auth()).toBe('Bearer other-token');
    expect(errorOf(rejected)).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The task host rejected the access token from file',
      details: { status: 401, tokenSource: 'file' },
    });
    for (const run of [health, rejected]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('without a token sends no Authorization header; 18.17 answers UNAUTHORIZED, /health needs none', async () => {
    const env = isolatedEnv({ TASK_HOST_URL: host.url });
    const run = await cli(['health'], env);
    expect(run.code).toBe(1);
    expect(errorOf(run)).toMatchObject({
      code: 'UNAUTHORIZED',
      message:
        'The task host requires an access token and none was found (set TASK_HOST_TOKEN or enable the token in Super Productivity)',
      details: { status: 401, tokenSource: 'none', health: { server: 'up', rendererReady: true } },
    });
    expect(host.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/health', undefined],
      ['/status', undefined],
    ]);
    const wrong = await mcpError('get_status', {}, { ...env, TASK_HOST_TOKEN: 'nope' });
    expect(wrong.error).toMatchObject({ code: 'UNAUTHORIZED', details: { tokenSource: 'env' } });
  });

  it('invalid configuration is INVALID_INPUT naming the variable, exit 2, no request', async () => {
    const cases = [
      ['TASK_HOST_URL', 'ftp://127.0.0.1'],
      ['TASK_HOST_URL', 'http://user:pw@127.0.0.1:3876'],
      ['TASK_HOST_URL', 'http://127.0.0.1:3876/api'],
      ['TASK_HOST_URL', 'http://127.0.0.1:3876?x=1'],
      ['TASK_HOST_TIMEOUT_MS', '0'],
      ['TASK_HOST_TIMEOUT_MS', '600001'],
      ['TASK_HOST_TIMEOUT_MS', '1.5'],
      ['TASK_HOST_TOKEN', 'has space'],
    ] as const;
    const runs = await Promise.all(
      cases.map(([variable, value]) => cli(['status'], hostEnv(host, undefined, { [variable]: value }))),
    );
    for (const [i, [variable, value]] of cases.entries()) {
      const run = runs[i] ?? { code: -1, stdout: '', stderr: '' };
      expect(run.code, `${variable}=${value}`).toBe(2);
      expect(run.stdout).toBe('');
      expect(errorOf(run)).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(new RegExp(`^${variable}: `)),
      });
    }
    expect(host.requests).toEqual([]);
    expect(parseHostSettings({ TASK_HOST_URL: 'http://localhost:3876/' }).url).toBe('http://localhost:3876');
  });
});
