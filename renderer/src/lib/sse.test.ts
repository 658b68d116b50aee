// The fetch-based event-stream reader against a real HTTP server on loopback: framing split
// anywhere, the Authorization header on every connection, Last-Event-ID after a reconnection, and
// no retry once the server refuses; and its limits. The parser itself is tested in engine/text.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '#engine/testing/eventually.ts';
import { createSseParser, MAX_EVENT_CHARS, SseOverflowError, subscribeEvents } from './sse.ts';

describe('event-stream limits', () => {
  it('refuses a line or an event longer than the limit instead of keeping it all', () => {
    const line = createSseParser(() => {});
    line.push('data: ');
    expect(() => line.push('x'.repeat(MAX_EVENT_CHARS))).toThrow(SseOverflowError);
    const event = createSseParser(() => {});
    const chunk = `data: ${'y'.repeat(1000)}\n`;
    expect(() => {
      for (let k = 0; k < MAX_EVENT_CHARS / 1000 + 2; k++) event.push(chunk);
    }).toThrow(SseOverflowError);
  });
});

describe('subscribeEvents over HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void) {
    server = createServer(handler);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  }

  it('sends the bearer on every connection and resumes after the last event id', async () => {
    const seen: { authorization?: string; lastEventId?: string; accept?: string }[] = [];
    const url = await serve((request, response) => {
      seen.push({
        authorization: request.headers.authorization,
        lastEventId: request.headers['last-event-id'] as string | undefined,
        accept: request.headers.accept,
      });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (seen.length === 1) {
        // The first stream ends after two events (one cut mid-way), as a restarted server's would.
        response.write('retry: 20\nid: 41\nevent: status\ndata: {"state":"id');
        setTimeout(() => response.end('le"}\n\nid: 42\nevent: progress\ndata: {"line":5}\n\n'), 20);
      } else {
        response.write('id: 43\nevent: status\ndata: {"state":"ready"}\n\n');
      }
    });
    let token = 'first-token';
    const received: unknown[] = [];
    const open: boolean[] = [];
    const subscription = subscribeEvents(
      url,
      { status: (data) => received.push(data), progress: (data) => received.push(data) },
      (state) => open.push(state),
      { headers: () => ({ authorization: `Bearer ${token}` }) },
    );
    await eventually(() => received.length >= 2);
    token = 'second-token';
    await eventually(() => received.length >= 3);
    subscription.close();
    expect(received).toEqual([{ state: 'idle' }, { line: 5 }, { state: 'ready' }]);
    expect(seen[0]).toEqual({ authorization: 'Bearer first-token', accept: 'text/event-stream' });
    expect(seen[1]).toEqual({
      authorization: 'Bearer second-token',
      lastEventId: '42',
      accept: 'text/event-stream',
    });
    expect(open.slice(0, 3)).toEqual([true, false, true]);
  });

  it('stops at 401 and says why, instead of asking again and again', async () => {
    let requests = 0;
    const url = await serve((_request, response) => {
      requests++;
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: 'Sign in to see the machine.' }));
    });
    const refused: [number, string | null][] = [];
    const subscription = subscribeEvents(url, {}, undefined, {
      retryMs: 5,
      onRefused: (status, detail) => refused.push([status, detail]),
    });
    await eventually(() => refused.length > 0);
    // Long enough for several retries had there been any.
    await new Promise((resolve) => setTimeout(resolve, 100));
    subscription.close();
    expect(refused).toEqual([[401, 'Sign in to see the machine.']]);
    expect(requests).toBe(1);
  });

  it('reconnects after a server error, and close() ends it', async () => {
    let requests = 0;
    const url = await serve((_request, response) => {
      requests++;
      if (requests < 3) {
        response.writeHead(503).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: status\ndata: {"state":"ready"}\n\n');
    });
    const received: unknown[] = [];
    const subscription = subscribeEvents(url, { status: (data) => received.push(data) }, undefined, {
      retryMs: 5,
    });
    await eventually(() => received.length === 1);
    subscription.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(3);
    expect(received).toEqual([{ state: 'ready' }]);
  });

  it('drops a stream whose event never ends, and carries on with a new connection', async () => {
    let requests = 0;
    const url = await serve((_request, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests === 1) {
        // A hostile or broken upstream: one data line, 2 MiB and growing, never finished.
        response.write('event: status\ndata: ');
        const piece = 'z'.repeat(64 * 1024);
        for (let k = 0; k < 32; k++) response.write(piece);
        return;
      }
      response.write('event: status\ndata: {"state":"ready"}\n\n');
    });
    const received: unknown[] = [];
    const subscription = subscribeEvents(url, { status: (data) => received.push(data) }, undefined, {
      retryMs: 5,
    });
    await eventually(() => received.length === 1);
    subscription.close();
    expect(received).toEqual([{ state: 'ready' }]);
    expect(requests).toBe(2);
  });
});
