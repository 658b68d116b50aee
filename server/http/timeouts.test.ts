// Slow and stuck clients against a real workstation: a body that trickles in or
// never arrives gets 408, idle keep-alive connections are closed, and an event stream requested with
// `Connection: close` ends. The workstation runs with short timeouts; the shipped ones are checked
// on the app itself.
import { connect, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../testing/http.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { createHttpApp, HTTP_TIMEOUTS } from './app.ts';

let ws: TestWorkstation;
beforeAll(async () => {
  ws = await startTestWorkstation(
    {},
    { httpTimeouts: { requestMs: 400, keepAliveMs: 200, checkIntervalMs: 100 } },
  );
});
afterAll(() => ws.dispose());

/** Opens a socket to the door, writes `head`, and collects everything until the server closes it. */
function openSocket(base: string, head: string) {
  const url = new URL(base);
  const socket: Socket = connect(Number(url.port), url.hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.write(head);
  return { socket, closed };
}

describe('slow and stuck requests', () => {
  it('answers a Content-Length never fulfilled with 408 and closes, on both doors', async () => {
    for (const [base, route] of [
      [ws.urls.lan, '/graphql'],
      [ws.urls.winding, '/validate/from-file'],
    ] as const) {
      const host = new URL(base).host;
      const { closed } = openSocket(
        base,
        `POST ${route} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"q`,
      );
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('answers a body trickling in byte by byte with 408 when its time is up', async () => {
    const host = new URL(ws.urls.lan).host;
    const { socket, closed } = openSocket(
      ws.urls.lan,
      `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(' ');
    }, 20);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
    }
  });

  it('closes an idle keep-alive connection', async () => {
    const host = new URL(ws.urls.lan).host;
    const { closed } = openSocket(ws.urls.lan, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/keep-alive/i);
  });

  it('ends a machine event stream requested with Connection: close', async () => {
    const response = await rawRequest(`${ws.urls.lan}/api/machine/events`, {
      headers: { connection: 'close' },
    });
    expect([response.status, response.headers.connection]).toEqual([200, 'close']);
    expect(response.text).toMatch(/^(id: \d+\n)?event: status\ndata: \{"state":"idle"/);
  });

  it('ships with a 30 s request timeout and a short keep-alive', async () => {
    const app = createHttpApp(pino({ level: 'silent' }), 'test');
    await app.ready();
    expect([app.server.requestTimeout, app.server.headersTimeout, app.server.keepAliveTimeout]).toEqual([
      HTTP_TIMEOUTS.requestMs,
      HTTP_TIMEOUTS.requestMs,
      HTTP_TIMEOUTS.keepAliveMs,
    ]);
    expect(HTTP_TIMEOUTS.requestMs).toBe(30_000);
    await app.close();
  });
});
