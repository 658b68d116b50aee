// How the host client collects an answer's bytes: announced with Content-Length and sent in
// pieces, or chunked without a length, the list reads the same; a body cut short is the host
// being unavailable, never a partial list.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHostSettings } from './config.ts';
import { BridgeError } from './errors.ts';
import { HostClient } from './host.ts';
import type { ListSource } from './lists.ts';

const tasks = Array.from({ length: 3000 }, (_, i) => ({
  id: `t${i}`,
  title: `Task ${i} ${'é'.repeat(i % 7)}`,
}));
const body = Buffer.from(JSON.stringify({ ok: true, data: tasks }));

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A host that writes the body in pieces of `piece` bytes, a tick apart. */
async function host(headers: Record<string, string>, bytes: Buffer, piece: number): Promise<HostClient> {
  server = http.createServer(async (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    for (let at = 0; at < bytes.length; at += piece) {
      response.write(bytes.subarray(at, at + piece));
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (headers['content-length'] === String(bytes.length) || !headers['content-length']) response.end();
    else response.socket?.destroy();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const env = { TASK_HOST_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  return new HostClient(parseHostSettings(env), env);
}

async function listed(client: HostClient): Promise<unknown[]> {
  const { data } = await client.requestList({ method: 'GET', path: '/tasks' });
  const list = data as ListSource;
  return list.slice(0, list.length);
}

describe('HostClient answers', () => {
  it('reads a body announced by Content-Length and sent in pieces', async () => {
    const client = await host({ 'content-length': String(body.length) }, body, 7001);
    expect(await listed(client)).toEqual(tasks);
  });

  it('reads a chunked body that announces no length', async () => {
    const client = await host({}, body, 4093);
    expect(await listed(client)).toEqual(tasks);
  });

  it('takes a body cut short of its Content-Length for an unavailable host', async () => {
    const client = await host({ 'content-length': String(body.length + 100) }, body, 65536);
    const failure = await listed(client).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BridgeError);
    expect((failure as BridgeError).code).toBe('APP_UNAVAILABLE');
  });
});
