// The renderer's gateway client in a real Chromium against a real `towpath serve`: values from a real
// SSE server on loopback reach the page, a renewal before expiry loses and repeats nothing, and a
// lost socket is reopened with the subscription re-sent.

import { expect, type Page, test } from '@playwright/test';
import { build } from 'esbuild';
import { ADMIN_EMAIL, PASSWORD } from '../server/testing/accounts.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { gql } from '../server/testing/graphql.ts';
import { type SseServer, startSseServer } from '../server/testing/realtime.ts';

const ADMIN = { email: ADMIN_EMAIL, password: PASSWORD };

let core: Core;
let sse: SseServer;
let dashboardId: string;
let bundle: string;
let pump: NodeJS.Timeout;

// The module is bundled as the viewer would load it; the page's CSP forbids inline test scripts.
test.use({ bypassCSP: true });

test.beforeAll(async () => {
  sse = await startSseServer();
  core = await startCore({
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    GATEWAY_EGRESS_ALLOW: 'loopback',
    // The shortest lifetime allowed: renewal comes after 30 s.
    DATASOURCE_SESSION_TTL_SECONDS: '60',
  });
  const signIn = await gql<{ authUser: { token: string } }>(
    core.lan,
    'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
    { variables: { e: ADMIN.email, p: ADMIN.password } },
  );
  const token = signIn.data?.authUser.token as string;
  const created = await gql<{ createDashboard: { _id: string } }>(
    core.lan,
    'mutation($i: CreateDashboardInput!) { createDashboard(dashboard: $i) { _id } }',
    {
      token,
      variables: {
        i: {
          title: 'Oven',
          version: 'towpath 0.1.0',
          visibility: 'PUBLIC',
          datasources: [{ id: 'temps', title: 'Temps', type: 'sse', settings: { url: sse.url } }],
        },
      },
    },
  );
  dashboardId = created.data?.createDashboard._id as string;
  const result = await build({
    entryPoints: ['renderer/src/lib/gateway-client.ts'],
    bundle: true,
    format: 'iife',
    globalName: 'TowpathGateway',
    write: false,
  });
  bundle = result.outputFiles[0]?.text ?? '';
  // One value every 50 ms, numbered: gaps and repeats show in the page.
  let n = 0;
  pump = setInterval(() => sse.send(JSON.stringify({ n: ++n })), 50);
});

test.afterAll(async () => {
  clearInterval(pump);
  expect(await core.stop()).toBe(0);
  await sse.stop();
});

async function startViewer(page: Page) {
  await page.goto(`${core.lan}/`);
  await page.addScriptTag({ content: bundle });
  await page.evaluate((id) => {
    const w = window as unknown as Record<string, unknown>;
    const values: { n: number; replay: boolean }[] = [];
    const types: string[] = [];
    const sockets: WebSocket[] = [];
    w.values = values;
    w.types = types;
    w.sockets = sockets;
    // The bundle's shape, written out: e2e may not import the renderer (layout.test.ts).
    type Handlers = {
      dashboardId: string;
      datasourceId: string;
      credential(): Promise<{ sessionToken: string }>;
      onData(value: unknown, message: { replay?: unknown }): void;
    };
    const { GatewayClient } = w.TowpathGateway as {
      GatewayClient: new (options: {
        createSocket(url: string): unknown;
      }) => {
        subscribe(handlers: Handlers): () => void;
      };
    };
    const client = new GatewayClient({
      createSocket: (url) => {
        const socket = new WebSocket(url, 'towpath.gateway.v1');
        socket.addEventListener('message', (event) => types.push(JSON.parse(String(event.data)).type));
        const send = socket.send.bind(socket);
        socket.send = (data: string) => {
          types.push(`sent:${JSON.parse(data).type}`);
          send(data);
        };
        sockets.push(socket);
        return socket as never;
      },
    });
    client.subscribe({
      dashboardId: id,
      datasourceId: 'temps',
      credential: async () => {
        const response = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              'mutation($d: ID!) { mintDatasourceSessionToken(dashboardId: $d, datasourceId: "temps") { token } }',
            variables: { d: id },
          }),
        });
        const body = await response.json();
        return { sessionToken: body.data.mintDatasourceSessionToken.token };
      },
      onData: (value, message) =>
        values.push({ n: (value as { n: number }).n, replay: message.replay === true }),
    });
  }, dashboardId);
}

const live = (page: Page) =>
  page.evaluate(() =>
    ((window as unknown as { values: { n: number; replay: boolean }[] }).values ?? [])
      .filter((v) => !v.replay)
      .map((v) => v.n),
  );
const types = (page: Page) => page.evaluate(() => (window as unknown as { types: string[] }).types);

test('streams values, renews before expiry without losing or repeating any, and reconnects', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await startViewer(page);
  await expect.poll(async () => (await live(page)).length, { timeout: 20_000 }).toBeGreaterThan(5);

  // Renewal at half of the 60 s lifetime: the stream goes on untouched.
  await expect.poll(async () => (await types(page)).includes('renewed'), { timeout: 60_000 }).toBe(true);
  await expect.poll(async () => (await live(page)).length, { timeout: 20_000 }).toBeGreaterThan(650);
  const before = await live(page);
  for (let i = 1; i < before.length; i += 1) expect(before[i]).toBe((before[i - 1] as number) + 1);
  expect((await types(page)).filter((t) => t === 'sent:subscribe')).toHaveLength(1);

  // The socket is lost: the client reopens it and re-sends the subscription.
  await page.evaluate(() => (window as unknown as { sockets: WebSocket[] }).sockets.at(-1)?.close());
  await expect
    .poll(async () => (await types(page)).filter((t) => t === 'sent:subscribe').length, { timeout: 20_000 })
    .toBe(2);
  const count = before.length;
  await expect.poll(async () => (await live(page)).length, { timeout: 20_000 }).toBeGreaterThan(count + 10);
  const after = await live(page);
  for (let i = 1; i < after.length; i += 1) expect(after[i]).toBeGreaterThan(after[i - 1] as number);
});
