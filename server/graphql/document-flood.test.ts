// A flood of anonymous documents against a core in its own process (so its memory is its own): every
// document answered, memory bounded; and bodies over the limit refused before they are read.
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flood, peakRssMb } from '../testing/document-flood.ts';
import { type Running, startNode } from '../testing/process.ts';
import { removeTempDir } from '../testing/workstation.ts';
import { GRAPHQL_BODY_LIMIT_BYTES } from './yoga.ts';

/**
 * Growth of the core's peak RSS over its RSS when ready. The flood's 8 clients keep 8 documents of
 * up to 5 MB in flight, so a core that holds a few copies of each stays well under this; one that
 * turned each body into garbage many times its size (as yoga's adapter did, 600+ MB) does not.
 */
const GROWTH_BOUND_MB = 250;

let dataDir: string;
let core: Running;
let lan: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'towpath-flood-'));
  core = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  const [, url] = await core.waitFor(/is running\. Open (http:\/\/[^/]+)\//);
  lan = url as string;
}, 60_000);
afterAll(async () => {
  core?.child.kill('SIGTERM');
  await core?.finished;
  if (dataDir) await removeTempDir(dataDir);
});

describe('a flood of anonymous documents', () => {
  it.runIf(process.platform === 'linux')(
    'answers every document, large ones with 413, in bounded memory',
    async () => {
      const pid = core.child.pid as number;
      const ready = await peakRssMb(pid);
      const result = await flood(`${lan}/graphql`, {
        large: 24,
        largeBytes: [2_000_000, 5_000_000],
        maximum: 24,
        clients: 8,
        deadlineMs: 60_000,
      });
      expect({ answered: result.answered, failures: result.failures, statuses: result.statuses }).toEqual({
        answered: 48,
        failures: 0,
        // Large documents are over the query's byte limit; maximum-size ones over its field limit.
        statuses: { 200: 24, 413: 24 },
      });
      expect(await peakRssMb(pid)).toBeLessThan(ready + GROWTH_BOUND_MB);
      // The core still serves an ordinary request afterwards.
      const after = await fetch(`${lan}/graphql?query=${encodeURIComponent('{ __typename }')}`);
      expect(await after.json()).toEqual({ data: { __typename: 'Query' } });
    },
    120_000,
  );
});

/**
 * Sends `head` and whatever `send` writes over a raw connection the client never ends, and resolves
 * with the core's answer once the core closes it: for a body left unfinished, an answer at all shows
 * the core did not wait for the rest.
 */
function exchange(head: string, send: (write: (chunk: string) => void) => void = () => {}) {
  return new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(lan);
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(head);
    send((chunk) => socket.write(chunk));
  });
}

const tooLarge =
  '{"errors":[{"message":"Request body too large","extensions":{"code":"PAYLOAD_TOO_LARGE"}}]}';

describe('bodies over the limit', () => {
  it('are refused from their Content-Length, before any of the body is sent', async () => {
    const answer = await exchange(
      `POST /graphql HTTP/1.1\r\nHost: ${new URL(lan).host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${GRAPHQL_BODY_LIMIT_BYTES + 1}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.endsWith(tooLarge)).toBe(true);
  });

  it('are refused as soon as a chunked body crosses the limit, before it ends', async () => {
    const answer = await exchange(
      `POST /graphql HTTP/1.1\r\nHost: ${new URL(lan).host}\r\nContent-Type: application/json\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n',
      (write) => {
        const chunk = 'x'.repeat(1024 * 1024);
        for (let sent = 0; sent <= GRAPHQL_BODY_LIMIT_BYTES; sent += chunk.length)
          write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.endsWith(tooLarge)).toBe(true);
  });

  it('leave a query string to the same checks as a body', async () => {
    const fields = `{ ${Array.from({ length: 1001 }, () => '__typename').join(' ')} }`;
    const response = await fetch(`${lan}/graphql?query=${encodeURIComponent(fields)}`);
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'Operation has more than 1000 fields',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'OPERATION_TOO_LARGE' },
        },
      ],
    });
    // A query string longer than Node takes for a request's head is refused before it reaches us.
    const long = await fetch(`${lan}/graphql?query=${'x'.repeat(200_000)}`);
    expect(long.status).toBe(431);
  });
});

describe('the request handed to yoga', () => {
  it('does not depend on the Host header being a valid host name', async () => {
    const body = '{"query":"{ __typename }"}';
    for (const host of ['a b', '[bad', 'x:99999']) {
      const answer = await exchange(
        `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect([host, answer.split('\r\n')[0], answer.slice(answer.indexOf('\r\n\r\n') + 4)]).toEqual([
        host,
        'HTTP/1.1 200 OK',
        '{"data":{"__typename":"Query"}}',
      ]);
    }
  });
});
