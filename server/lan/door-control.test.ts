import { createServer } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../bridge/version.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { buildLanDoor } from './door.ts';

/** State changes are JSON, with an empty object where there is nothing to send. */
const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

describe('winding door status on the LAN door', () => {
  it('reports the winding door healthy while it answers', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.lan}/api/doors/winding/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', version: VERSION });
    expect(await (await fetch(`${ws.urls.lan}/api/doors`)).json()).toEqual({
      winding: { url: ws.urls.winding, running: true },
    });
  });

  it('reports it unreachable once stopped, and healthy again on the same URL after a start', async () => {
    ws = await startTestWorkstation();
    const stopped = await fetch(`${ws.urls.lan}/api/doors/winding/stop`, JSON_POST);
    expect(await stopped.json()).toEqual({ url: ws.urls.winding, running: false });
    await expect(fetch(`${ws.urls.winding}/healthz`)).rejects.toThrow();

    const probe = await fetch(`${ws.urls.lan}/api/doors/winding/healthz`);
    expect(probe.status).toBe(503);
    expect(await probe.json()).toEqual({
      status: 'unreachable',
      detail: 'Winding door is not answering (ECONNREFUSED)',
    });

    const started = await fetch(`${ws.urls.lan}/api/doors/winding/start`, JSON_POST);
    expect(await started.json()).toEqual({ url: ws.urls.winding, running: true });
    expect((await fetch(`${ws.urls.winding}/healthz`)).status).toBe(200);
    expect((await fetch(`${ws.urls.lan}/api/doors/winding/healthz`)).status).toBe(200);
  });

  it('lets only clients on the workstation stop or start the winding door', async () => {
    ws = await startTestWorkstation();
    // light-my-request sets the socket's remote address, which real sockets from another host would have.
    const app = await buildLanDoor({
      logger: pino({ level: 'silent' }),
      rendererDir: ws.root,
      winding: ws.doors.winding,
    });
    try {
      for (const action of ['stop', 'start']) {
        for (const remoteAddress of ['192.168.1.20', '10.0.0.7', 'fe80::1']) {
          const response = await app.inject({
            method: 'POST',
            url: `/api/doors/winding/${action}`,
            remoteAddress,
            headers: { 'x-forwarded-for': '127.0.0.1', 'content-type': 'application/json' },
            payload: '{}',
          });
          expect(response.statusCode, `${action} from ${remoteAddress}`).toBe(403);
          expect(response.json()).toEqual({
            detail: 'This route accepts only clients on the workstation itself.',
          });
        }
      }
      expect(ws.doors.winding.running).toBe(true);
      for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/doors/winding/stop',
          remoteAddress,
          headers: { 'content-type': 'application/json' },
          payload: '{}',
        });
        expect(response.statusCode, remoteAddress).toBe(200);
      }
      expect(ws.doors.winding.running).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('answers 409 when the winding door cannot get its port back', async () => {
    ws = await startTestWorkstation();
    await fetch(`${ws.urls.lan}/api/doors/winding/stop`, JSON_POST);
    const port = Number(new URL(ws.urls.winding).port);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const response = await fetch(`${ws.urls.lan}/api/doors/winding/start`, JSON_POST);
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        detail: `cannot start the winding door on 127.0.0.1:${port}: the port is already in use`,
      });
      expect(ws.doors.winding.running).toBe(false);
    } finally {
      squatter.close();
    }
  });
});
