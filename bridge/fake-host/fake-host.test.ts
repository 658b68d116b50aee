// The fake host keeps the real host's checks and version gates, so bridge tests mean something.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeHost, startFakeHost } from './server.ts';

let host: FakeHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function send(
  h: FakeHost,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request(`${h.url}${path}`, { method, headers: options.headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            headers: res.headers,
          }),
        );
      });
      req.on('error', reject);
      req.end(options.body);
    },
  );
}

describe('fake task host', () => {
  it('applies the pre-routing checks in order and answers /health without a token', async () => {
    host = await startFakeHost({ version: '18.17.0', token: 'tok', seed: 'clean' });
    expect((await send(host, 'GET', '/health')).body).toEqual({
      ok: true,
      data: { server: 'up', rendererReady: true },
    });
    expect(await send(host, 'GET', '/status', { headers: { Host: 'evil.example' } })).toMatchObject({
      status: 403,
      body: { error: { message: 'Invalid Host header' } },
    });
    expect((await send(host, 'GET', '/status', { headers: { Origin: 'https://evil.example' } })).status).toBe(
      403,
    );
    const missing = await send(host, 'GET', '/status');
    expect(missing).toMatchObject({
      status: 401,
      body: { ok: false, error: { code: 'UNAUTHORIZED' } },
      headers: { 'www-authenticate': 'Bearer' },
    });
    const auth = { Authorization: 'bearer tok', Origin: 'null' };
    expect((await send(host, 'GET', '/status', { headers: auth })).status).toBe(200);
    expect((await send(host, 'POST', '/tasks', { headers: auth, body: '{bad' })).body).toMatchObject({
      error: { code: 'INVALID_REQUEST_BODY' },
    });
    expect(
      (
        await send(host, 'POST', '/tasks', {
          headers: auth,
          body: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
        })
      ).body,
    ).toMatchObject({ error: { code: 'INVALID_REQUEST_BODY' } });
    expect((await send(host, 'GET', '/tasks/', { headers: auth })).body).toMatchObject({
      error: { code: 'NOT_FOUND', message: 'Route not found' },
    });
    expect((await send(host, 'DELETE', '/tasks/t1', { headers: auth })).status).toBe(404);
    host.options.rendererReady = false;
    expect((await send(host, 'GET', '/status', { headers: auth })).body).toMatchObject({
      error: { code: 'APP_NOT_READY' },
    });
    host.options.apiDisabled = true;
    expect((await send(host, 'GET', '/health')).status).toBe(503);
  });

  it('checks types with details from 18.14 and projects from 18.15; 18.10 stores anything', async () => {
    host = await startFakeHost({ version: '18.17.0', token: 'tok', seed: 'clean' });
    const auth = { Authorization: 'Bearer tok' };
    const typed = await send(host, 'PATCH', '/tasks/t3', {
      headers: auth,
      body: JSON.stringify({ plannedAt: '2026-01-01' }),
    });
    expect(typed.body).toMatchObject({
      error: { code: 'INVALID_INPUT', details: [{ path: '$input.plannedAt', expected: 'number' }] },
    });
    expect(
      (await send(host, 'PATCH', '/tasks/t3', { headers: auth, body: JSON.stringify({ projectId: 'nope' }) }))
        .body,
    ).toMatchObject({ error: { code: 'PROJECT_NOT_FOUND' } });
    expect(
      (
        await send(host, 'PATCH', '/tasks/t1a', {
          headers: auth,
          body: JSON.stringify({ projectId: 'INBOX_PROJECT' }),
        })
      ).body,
    ).toMatchObject({ error: { code: 'UNSUPPORTED_FIELD' } });
    const moved = await send(host, 'PATCH', '/tasks/t3', {
      headers: auth,
      body: JSON.stringify({ projectId: 'work' }),
    });
    expect(moved.status).toBe(200);
    expect(host.store.projects.find((p) => p.id === 'work')?.taskIds).toEqual(['t1', 't2', 't3']);
    expect(host.store.projects.find((p) => p.id === 'INBOX_PROJECT')?.taskIds).toEqual([]);
    await host.close();

    host = await startFakeHost({ version: '18.10.0', seed: 'clean' });
    expect(
      (await send(host, 'PATCH', '/tasks/t3', { body: JSON.stringify({ plannedAt: 'soon' }) })).status,
    ).toBe(200);
  });

  it('emulates the phantom archive of hosts before 18.15 and the 404 after', async () => {
    host = await startFakeHost({ version: '18.10.0', seed: 'clean' });
    expect((await send(host, 'POST', '/tasks/ghost/archive')).body).toEqual({
      ok: true,
      data: { id: 'ghost', archived: true },
    });
    expect(((await send(host, 'GET', '/tasks')).body as { data: unknown[] }).data).toEqual([
      expect.objectContaining({ id: 't1a' }),
    ]);
    await host.close();
    host = await startFakeHost({ version: '18.17.0', token: 't', seed: 'clean' });
    expect(
      (await send(host, 'POST', '/tasks/ghost/archive', { headers: { Authorization: 'Bearer t' } })).body,
    ).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
  });

  it('archives a task with its subtasks out of every index and restores it', async () => {
    host = await startFakeHost({ version: '18.10.0', seed: 'clean' });
    host.store.currentTaskId = 't1a';
    await send(host, 'POST', '/tasks/t1/archive');
    expect([...host.store.archived.keys()].sort()).toEqual(['a1', 't1', 't1a']);
    expect(host.store.tags.find((t) => t.id === 'urgent')?.taskIds).toEqual([]);
    expect(host.store.currentTaskId).toBeNull();
    await send(host, 'POST', '/tasks/t1/restore');
    expect(host.store.active.has('t1a')).toBe(true);
    expect(host.store.projects.find((p) => p.id === 'work')?.taskIds).toEqual(['t2', 't1']);
  });

  it('answers 429 beyond 50 pending requests', async () => {
    host = await startFakeHost({ version: '18.10.0', seed: 'clean', rendererDelayMs: 200 });
    const answers = await Promise.all(
      Array.from({ length: 55 }, () => send(host as FakeHost, 'GET', '/status')),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429).length).toBe(5);
    expect(statuses.filter((s) => s === 200).length).toBe(50);
  });
});
