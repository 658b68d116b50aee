import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchHealth } from './health.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real HTTP server on loopback answering every request with the given handler. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('fetchHealth', () => {
  it('returns the version of a healthy door', async () => {
    const url = await serve((_req, res) => res.end(JSON.stringify({ status: 'ok', version: '1.2.3' })));
    expect(await fetchHealth(`${url}/healthz`)).toEqual({ status: 'ok', version: '1.2.3' });
  });

  it('passes on the detail of a door reported down', async () => {
    const url = await serve((_req, res) => {
      res.statusCode = 503;
      res.end(
        JSON.stringify({ status: 'unreachable', detail: 'Winding door is not answering (ECONNREFUSED)' }),
      );
    });
    await expect(fetchHealth(url)).rejects.toThrow('Winding door is not answering (ECONNREFUSED)');
  });

  it('names the status of an answer that is not health', async () => {
    const url = await serve((_req, res) => {
      res.statusCode = 502;
      res.end('<html>bad gateway</html>');
    });
    await expect(fetchHealth(url)).rejects.toThrow('answered HTTP 502');
  });

  it('says a door is not reachable when nothing listens', async () => {
    const url = await serve((_req, res) => res.end());
    server?.close();
    await expect(fetchHealth(url)).rejects.toThrow('not reachable');
  });

  it('gives up on a door that does not answer in time', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    await expect(fetchHealth(url, { timeoutMs: 200 })).rejects.toThrow('no answer within 0.2 s');
  });
});
