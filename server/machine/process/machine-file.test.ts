// The e-stop's hand-written HTTP request (postEmergencyStop) against real HTTP servers on loopback,
// and the response reader it uses on answers cut at every byte.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseResponse, postEmergencyStop } from './machine-file.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A door on loopback that records what it was asked and answers with `respond`. */
async function door(respond: (response: import('node:http').ServerResponse) => void) {
  const asked: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      asked.push({ method: request.method, url: request.url, headers: request.headers, body });
      respond(response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, asked };
}

describe('postEmergencyStop', () => {
  it('posts {} as JSON to the estop route and reads the answer, with a length or chunked', async () => {
    const body = JSON.stringify({ sent: true, status: { state: 'error' } });
    const sized = await door((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      response.end(body);
    });
    expect(await postEmergencyStop(sized.url)).toEqual({ sent: true, state: 'error' });
    expect(sized.asked).toEqual([
      {
        method: 'POST',
        url: '/api/machine/estop',
        headers: expect.objectContaining({
          host: new URL(sized.url).host,
          'content-type': 'application/json',
          connection: 'close',
        }),
        body: '{}',
      },
    ]);

    const chunked = await door((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(body.slice(0, 5));
      response.end(body.slice(5));
    });
    expect(await postEmergencyStop(chunked.url)).toEqual({ sent: true, state: 'error' });
  });

  it('says what the door refused, and when nothing answers', async () => {
    const refusing = await door((response) => {
      response.writeHead(421, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: 'Misdirected request' }));
    });
    await expect(postEmergencyStop(refusing.url)).rejects.toThrow('Misdirected request');

    const silent = await door(() => {});
    await expect(postEmergencyStop(silent.url, 200)).rejects.toThrow('no answer within 200 ms');

    // Nothing listens on port 1; a closed door's own port could be handed to the next server bound.
    await expect(postEmergencyStop('http://127.0.0.1:1')).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});

describe('parseResponse', () => {
  const whole = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-A: b:c\r\n\r\n{"sent":1}\n');
  const chunked = Buffer.from(
    'HTTP/1.1 403 Forbidden\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{"de\r\n6\r\ntail"}\r\n0\r\n\r\n',
  );

  it('waits for the whole answer however it is cut', () => {
    for (const [bytes, expected] of [
      [whole, { status: 200, body: '{"sent":1}\n' }],
      [chunked, { status: 403, body: '{"detail"}' }],
    ] as const) {
      for (let cut = 0; cut < bytes.length; cut++) {
        expect(parseResponse(bytes.subarray(0, cut), false)).toBeUndefined();
        expect(parseResponse(bytes.subarray(0, cut), true)).toBeInstanceOf(Error);
      }
      expect(parseResponse(bytes, false)).toEqual(expected);
    }
  });

  it('refuses what is not an HTTP answer, and reads to the end one without a length', () => {
    expect(parseResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'), false)).toBeInstanceOf(Error);
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'), false)).toBeInstanceOf(
      Error,
    );
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\n\r\n{}'), false)).toBeUndefined();
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\n\r\n{}'), true)).toEqual({
      status: 200,
      body: '{}',
    });
  });
});
