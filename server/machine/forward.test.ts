// The LAN door's /api/machine/*: forwarded to the machine process; control only from the
// workstation, status and events also for signed-in LAN users; and the machine door's CORS for the
// renderer's e-stop. LAN clients are simulated with inject's remote address on a door built the
// way the workstation builds its LAN door's machine routes.
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http/app.ts';
import { ADMIN_EMAIL, PASSWORD, signIn } from '../testing/graphql-fixture.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { machineForwardRoutes, signedInUser } from './forward.ts';
import { PREFLIGHT_MAX_AGE_S } from './process/door.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function rig(
  allowRemote = false,
): Promise<{ ws: TestWorkstation; lanDoor: FastifyInstance; token: string }> {
  const ws = await startTestWorkstation({ CREATE_ADMIN: 'true', ADMIN_EMAIL, ADMIN_PASSWORD: PASSWORD });
  cleanups.push(() => ws.dispose());
  const lanDoor = createHttpApp(pino({ level: 'silent' }), 'lan');
  await lanDoor.register(machineForwardRoutes, {
    machineUrl: () => ws.urls.machine,
    allowRemote: () => allowRemote,
    isSignedIn: signedInUser(ws.dashboardApi.services),
  });
  cleanups.push(() => lanDoor.close());
  return { ws, lanDoor, token: await signIn(ws.urls.lan, ADMIN_EMAIL) };
}

const LAN_CLIENT = '192.168.1.20';

describe('/api/machine/* on the LAN door', () => {
  it('lets signed-in LAN users read status and events, and keeps control on the workstation', async () => {
    const { lanDoor, token } = await rig();
    const remote = (method: 'GET' | 'POST', url: string, authorization?: string) =>
      lanDoor.inject({
        method,
        url,
        remoteAddress: LAN_CLIENT,
        headers: {
          ...(authorization ? { authorization } : {}),
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });

    for (const authorization of [undefined, 'Bearer not-a-token']) {
      const refused = await remote('GET', '/api/machine/status', authorization);
      expect([refused.statusCode, refused.json()]).toEqual([401, { detail: 'Sign in to see the machine.' }]);
      expect((await remote('GET', '/api/machine/events', authorization)).statusCode).toBe(401);
    }
    const status = await remote('GET', '/api/machine/status', `Bearer ${token}`);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ state: 'idle', port: null, job: null });

    const events = await lanDoor.inject({
      method: 'GET',
      url: '/api/machine/events',
      remoteAddress: LAN_CLIENT,
      headers: { authorization: `Bearer ${token}` },
      payloadAsStream: true,
    });
    expect(events.statusCode).toBe(200);
    expect(events.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const stream = events.stream();
    const first = await new Promise<string>((resolve) =>
      stream.once('data', (chunk: Buffer) => resolve(String(chunk))),
    );
    expect(first).toMatch(/^id: \d+\nevent: status\ndata: \{"state":"idle"/);
    stream.destroy();

    // Signed in or not, a LAN client may not move the machine.
    for (const url of [
      '/api/machine/estop',
      '/api/machine/connect',
      '/api/machine/job',
      '/api/machine/cancel',
      '/api/machine/jog',
      '/api/machine/home',
      '/api/machine/position',
      '/api/machine/command',
    ]) {
      const refused = await remote('POST', url, `Bearer ${token}`);
      expect(refused.statusCode, url).toBe(403);
    }
    expect((await remote('GET', '/api/machine/ports', `Bearer ${token}`)).statusCode).toBe(403);
    // Where the machine door is, is for the workstation only.
    expect((await remote('GET', '/api/machine/door')).json()).toEqual({ url: null, control: false });
  });

  it('tells a page whether it may control: with MACHINE_REMOTE_CONTROL=1 a LAN page may, without the door URL', async () => {
    const { lanDoor } = await rig(true);
    const door = await lanDoor.inject({ method: 'GET', url: '/api/machine/door', remoteAddress: LAN_CLIENT });
    expect(door.json()).toEqual({ url: null, control: true });
  });

  it('forwards to the machine door on the workstation, bodies and refusals as they are', async () => {
    const { ws } = await rig();
    const door = await (await fetch(`${ws.urls.lan}/api/machine/door`)).json();
    expect(door).toEqual({ url: ws.urls.machine, control: true });
    const refused = await fetch(`${ws.urls.lan}/api/machine/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect([refused.status, await refused.json()]).toEqual([
      400,
      { detail: 'Invalid request body: port: Field required' },
    ]);
    const bad = await fetch(`${ws.urls.lan}/api/machine/job`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"gcode": [1]}',
    });
    expect([bad.status, await bad.json()]).toEqual([
      400,
      { detail: "Invalid JSON body: field 'gcode' must not be nested" },
    ]);
    const estop = await fetch(`${ws.urls.lan}/api/machine/estop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await estop.json()).toMatchObject({ sent: false, status: { state: 'idle' } });
  });

  it('lets the LAN door’s own pages call the machine door, with a preflight cached for two hours', async () => {
    const { ws } = await rig();
    const port = new URL(ws.urls.lan).port;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const preflight = await fetch(`${ws.urls.machine}/api/machine/estop`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
      expect(preflight.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_S));
      const estop = await fetch(`${ws.urls.machine}/api/machine/estop`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(estop.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const foreign = await fetch(`${ws.urls.machine}/api/machine/status`, {
      headers: { origin: 'http://attacker.example' },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
