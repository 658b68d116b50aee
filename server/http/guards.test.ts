// The doors' request guards, attacked the way a hostile page open in a browser on the workstation
// (or a rebound DNS name) would: a foreign Host, a foreign Origin, form and text/plain posts. A real
// workstation on loopback; each refused request must also have done nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../testing/http.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { hostName, isHostAllowed } from './guards.ts';

let ws: TestWorkstation;
let lanHost: string;
let windingHost: string;
beforeAll(async () => {
  ws = await startTestWorkstation({
    ALLOWED_HOSTS: 'workstation.shop.test',
    CORS_ORIGINS: 'https://board.shop.test',
  });
  lanHost = new URL(ws.urls.lan).host;
  windingHost = new URL(ws.urls.winding).host;
});
afterAll(() => ws.dispose());

const JSON_TYPE = { 'content-type': 'application/json' };
const path = (base: string, route: string) => `${base}${route}`;

describe('Host (DNS rebinding)', () => {
  it('answers a rebound name on the winding door with 421 before any work', async () => {
    const jobs = join(ws.root, 'jobs');
    await mkdir(jobs, { recursive: true });
    await writeFile(join(jobs, 'part.wind'), '{}');
    for (const route of ['/healthz', '/openapi.json', '/validate/from-file']) {
      const response = await rawRequest(path(ws.urls.winding, route), {
        method: route.endsWith('file') ? 'POST' : 'GET',
        headers: { host: `attacker.example.com:${new URL(ws.urls.winding).port}`, ...JSON_TYPE },
        body: route.endsWith('file') ? JSON.stringify({ path: join(jobs, 'part.wind') }) : undefined,
      });
      expect([route, response.status, response.json]).toEqual([
        route,
        421,
        { detail: 'Misdirected request' },
      ]);
    }
    // The loopback names, any port, and ALLOWED_HOSTS are served.
    for (const host of [windingHost, 'localhost:1', '[::1]:8000', 'WorkStation.Shop.Test']) {
      expect((await rawRequest(path(ws.urls.winding, '/healthz'), { headers: { host } })).status).toBe(200);
    }
  });

  it("refuses a rebound name on the LAN door's local routes but serves its LAN pages", async () => {
    const foreign = { host: 'attacker.example.com', ...JSON_TYPE };
    const stop = await rawRequest(path(ws.urls.lan, '/api/doors/winding/stop'), {
      method: 'POST',
      headers: foreign,
      body: '{}',
    });
    expect([stop.status, stop.json]).toEqual([421, { detail: 'Misdirected request' }]);
    expect(ws.doors.winding.running).toBe(true);

    const connect = await rawRequest(path(ws.urls.lan, '/api/machine/connect'), {
      method: 'POST',
      headers: foreign,
      body: JSON.stringify({ port: '/dev/tty' }),
    });
    expect(connect.status).toBe(421);
    expect(ws.machine.status().state).toBe('idle');
    // Where the machine door is: for pages on the workstation only.
    expect((await rawRequest(path(ws.urls.lan, '/api/machine/door'), { headers: foreign })).status).toBe(421);
    expect((await rawRequest(path(ws.urls.lan, '/api/tasks/today'), { headers: foreign })).status).toBe(421);

    // What LAN browsers use answers whatever name they reached the workstation by.
    expect((await rawRequest(path(ws.urls.lan, '/healthz'), { headers: foreign })).status).toBe(200);
    expect((await rawRequest(path(ws.urls.lan, '/api/doors'), { headers: foreign })).status).toBe(200);
  });

  it('shows a browser opening a workstation-only page why it is refused; API clients keep the JSON', async () => {
    const page = await rawRequest(path(ws.urls.lan, '/api/tasks/today?a=1&b=2'), {
      headers: { host: '192.168.4.20:4001', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.status).toBe(421);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<h1>This page is only available on the workstation itself</h1>');
    expect(page.text).toContain(`http://127.0.0.1:${new URL(ws.urls.lan).port}/api/tasks/today?a=1&#38;b=2`);
    const docs = await rawRequest(path(ws.urls.winding, '/docs'), {
      headers: { host: 'winder.shop.test', accept: 'text/html' },
    });
    expect([docs.status, docs.text.includes('only available on the workstation itself')]).toEqual([
      421,
      true,
    ]);
    // fetch() and API clients ask for anything or JSON: the JSON answer, as before.
    for (const accept of ['*/*', 'application/json']) {
      const api = await rawRequest(path(ws.urls.lan, '/api/tasks/today'), {
        headers: { host: '192.168.4.20:4001', accept },
      });
      expect([api.status, api.json]).toEqual([421, { detail: 'Misdirected request' }]);
    }
  });

  it('reads Host names strictly', () => {
    expect(
      ['localhost:4001', '[::1]:80', 'Example.COM', 'a b', '', 'x:y', '[zz]'].map((h) => hostName(h)),
    ).toEqual(['localhost', '[::1]', 'example.com', null, null, null, null]);
    expect(isHostAllowed('192.168.1.5:4001', [], false)).toBe(false);
    expect(isHostAllowed('192.168.1.5:4001', [], true)).toBe(true);
    expect(isHostAllowed('[fe80::1]:4001', [], true)).toBe(true);
    expect(isHostAllowed('evil.test', [], true)).toBe(false);
    expect(isHostAllowed(undefined, [], true)).toBe(false);
  });
});

describe('cross-site writes', () => {
  it('refuses a foreign Origin on every state change, before anything happens', async () => {
    const evil = { origin: 'http://evil.example', ...JSON_TYPE };
    for (const route of [
      '/api/machine/cancel',
      '/api/machine/estop',
      '/api/doors/winding/stop',
      '/graphql',
    ]) {
      const response = await rawRequest(path(ws.urls.lan, route), {
        method: 'POST',
        headers: evil,
        body: '{}',
      });
      expect([route, response.status, response.json]).toEqual([
        route,
        403,
        { detail: 'Cross-origin request refused' },
      ]);
    }
    expect(ws.doors.winding.running).toBe(true);
    const winding = await rawRequest(path(ws.urls.winding, '/validate/from-file'), {
      method: 'POST',
      headers: evil,
      body: JSON.stringify({ path: '/tmp/x.wind' }),
    });
    expect(winding.status).toBe(403);
    // A sandboxed page says "null".
    const sandboxed = await rawRequest(path(ws.urls.lan, '/api/machine/cancel'), {
      method: 'POST',
      headers: { origin: 'null', ...JSON_TYPE },
      body: '{}',
    });
    expect(sandboxed.status).toBe(403);
  });

  it("accepts the door's own origin and CORS_ORIGINS", async () => {
    for (const origin of [`http://${lanHost}`, 'https://board.shop.test', undefined]) {
      const response = await rawRequest(path(ws.urls.lan, '/api/machine/estop'), {
        method: 'POST',
        headers: { ...(origin ? { origin } : {}), ...JSON_TYPE },
        body: '{}',
      });
      expect([origin, response.status]).toEqual([origin, 200]);
    }
  });

  it('refuses bodiless, text/plain and form posts with 415 and does nothing', async () => {
    const bodies: [string, Record<string, string>, string | undefined][] = [
      ['bodiless', {}, undefined],
      ['text/plain', { 'content-type': 'text/plain' }, '{}'],
      ['form', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
      ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--\r\n'],
    ];
    for (const route of ['/api/doors/winding/stop', '/api/machine/estop', '/api/machine/cancel']) {
      for (const [name, headers, body] of bodies) {
        const response = await rawRequest(path(ws.urls.lan, route), {
          method: 'POST',
          headers: { origin: `http://${lanHost}`, ...headers },
          body,
        });
        expect([route, name, response.status, response.json]).toEqual([
          route,
          name,
          415,
          { detail: 'Content-Type must be application/json' },
        ]);
      }
    }
    expect(ws.doors.winding.running).toBe(true);
  });

  it('takes GraphQL posts only as JSON: a form post cannot create the first admin', async () => {
    const query = 'mutation { registerUser(email: "evil@evil.test", password: "Evil-Password-1") { token } }';
    const form = await rawRequest(path(ws.urls.lan, '/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query }).toString(),
    });
    expect(form.status).toBe(415);
    const multipart = await rawRequest(path(ws.urls.lan, '/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: `--b\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query })}\r\n--b--\r\n`,
    });
    expect(multipart.status).toBe(415);
    expect(ws.dashboardApi.services.store.users.count()).toBe(0);
    // Queries by GET and JSON posts still work, with either JSON Accept type.
    const get = await rawRequest(path(ws.urls.lan, '/graphql?query=%7B__typename%7D'), {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect([get.status, get.json]).toEqual([200, { data: { __typename: 'Query' } }]);
    const post = await rawRequest(path(ws.urls.lan, '/graphql'), {
      method: 'POST',
      headers: { ...JSON_TYPE, accept: 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect([post.status, post.json]).toEqual([200, { data: { __typename: 'Query' } }]);
  });
});
