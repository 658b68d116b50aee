// The renderer's "Emergency stop" in a real Chromium against a real `towpath serve`, its machine
// process and the fake Marlin on a socat pseudo-terminal pair: on every screen while connected, and
// a click reaches the controller as M112 through the machine door: over the page's standing
// WebSocket line to it, or by POST when that line is not open.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { ESTOP_SHORTCUT, ESTOP_SOCKET_MESSAGE, ESTOP_SOCKET_ROUTE } from '../engine/machine/door.ts';
import type { FakeMarlin } from '../server/machine/testing/fake-marlin.ts';
import { attachFakeMarlin } from '../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../server/machine/testing/pty-pair.ts';
import { type Running, startNode } from '../server/testing/process.ts';
import { seriousAxeViolations } from './support/axe.ts';

let core: Running;
let lan: string;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'towpath-e2e-estop-'));
  core = startNode('server/testing/serve.ts', [], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    MACHINE_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TOWPATH_TEST_MACHINE_TIMINGS: JSON.stringify({ bootIdleMs: 50 }),
  });
  const [, url] = await core.waitFor(/listening (\S+) /);
  lan = url as string;
});

test.afterAll(async () => {
  core.child.kill('SIGTERM');
  await core.finished;
  await rm(dataDir, { recursive: true, force: true });
});

let pair: PtyPair;
let fake: FakeMarlin;
let closeFake: () => Promise<void>;

test.beforeEach(async () => {
  pair = await createPtyPair();
  const onPort = await attachFakeMarlin(pair.far, { ackDelayMs: 5 });
  fake = onPort.fake;
  closeFake = onPort.close;
});

test.afterEach(async () => {
  await closeFake();
  await pair.dispose();
});

/** E-stops the page sends, over its line to the machine door or by POST, with where they went. */
function recordEstops(page: Page) {
  const sent: { way: 'line' | 'post'; url: string }[] = [];
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => {
      if (frame.payload === ESTOP_SOCKET_MESSAGE) sent.push({ way: 'line', url: socket.url() });
    });
  });
  page.on('request', (r) => {
    if (r.url().endsWith('/api/machine/estop') && r.method() === 'POST')
      sent.push({ way: 'post', url: r.url() });
  });
  return sent;
}

test('is on every screen while a machine is connected, and a click sends M112', async ({ page, request }) => {
  const sent = recordEstops(page);
  await page.goto(`${lan}/`);
  const button = page.getByRole('button', { name: 'Emergency stop' });
  await expect(page.locator('.estop')).toHaveAttribute('data-machine-state', 'idle');
  await expect(button).toHaveCount(0);

  expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
    200,
  );
  await expect(button).toBeVisible();
  await expect(button).toContainText(ESTOP_SHORTCUT.label);
  // The Admin area is listed to signed-in admins only; the sign-in screen stands in for it here.
  await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
  await expect(button).toBeVisible();
  for (const area of ['Dashboards', 'Tasks', 'Winding']) {
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: area }).click();
    await expect(button).toBeVisible();
  }

  const gcode = Array.from({ length: 5000 }, (_, i) => `G0 X${i}`).join('\n');
  expect((await request.post(`${lan}/api/machine/job`, { data: { gcode } })).status()).toBe(202);
  await expect.poll(() => fake.commands.length).toBeGreaterThan(10);
  // Straight to the machine door over the line the page opened when the button appeared, not
  // through the LAN door.
  await button.click();
  await expect.poll(() => fake.unframed.includes('M112')).toBe(true);
  expect(sent).toHaveLength(1);
  expect(sent[0]?.way).toBe('line');
  const line = new URL(sent[0]?.url ?? '');
  expect(line.pathname).toBe(ESTOP_SOCKET_ROUTE);
  expect(line.port).not.toBe(new URL(lan).port);
  await expect(page.getByRole('status').filter({ hasText: 'Emergency stop sent' })).toHaveCount(1);
  // Halted: the port is closed, so there is nothing left to stop and the button goes.
  await expect(page.locator('.estop')).toHaveAttribute('data-machine-state', 'error');
  await expect(button).toHaveCount(0);
});

test('the keyboard shortcut stops the machine too', async ({ page, request }) => {
  await page.goto(`${lan}/`);
  expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
    200,
  );
  await expect(page.getByRole('button', { name: 'Emergency stop' })).toBeVisible();
  await page.keyboard.press('Control+Shift+E');
  await expect.poll(() => fake.unframed.includes('M112')).toBe(true);
});

test('acts on press like a hardware e-stop, sending once for the whole press', async ({ page, request }) => {
  // Before the page opens its line, so the line's frames are seen too.
  const sent = recordEstops(page);
  await page.goto(`${lan}/`);
  expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
    200,
  );
  const button = page.getByRole('button', { name: 'Emergency stop' });
  await expect(button).toBeVisible();
  const box = await button.boundingBox();
  if (!box) throw new Error('the button has no box');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // M112 reaches the controller while the button is still held down.
  await expect.poll(() => fake.unframed.includes('M112')).toBe(true);
  await page.mouse.up();
  await expect(page.getByRole('status').filter({ hasText: 'Emergency stop sent' })).toHaveCount(1);
  expect(sent).toHaveLength(1);
});

test('goes by POST to the machine door when the line cannot open', async ({ page, request }) => {
  // Every attempt to open the line is refused, as by a machine process that does not offer it.
  await page.routeWebSocket(/\/api\/machine\/estop\/socket$/, (socket) => socket.close());
  const sent = recordEstops(page);
  await page.goto(`${lan}/`);
  expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
    200,
  );
  await page.getByRole('button', { name: 'Emergency stop' }).click();
  await expect.poll(() => fake.unframed.includes('M112')).toBe(true);
  await expect(page.getByRole('status').filter({ hasText: 'Emergency stop sent' })).toHaveCount(1);
  expect(sent.map((estop) => estop.way)).toEqual(['post']);
  expect(new URL(sent[0]?.url ?? '').origin).not.toBe(new URL(lan).origin);
});

test('Enter on the focused button stops the machine (keyboard activation)', async ({ page, request }) => {
  await page.goto(`${lan}/`);
  expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
    200,
  );
  const button = page.getByRole('button', { name: 'Emergency stop' });
  await button.focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => fake.unframed.includes('M112')).toBe(true);
});

test.describe('as axe sees it', () => {
  // axe-core is injected into the page as a script, which the app's CSP refuses.
  test.use({ bypassCSP: true });

  test('the button passes axe: its name is the words on it, and its white text reads at 4.5:1', async ({
    page,
    request,
  }) => {
    await page.goto(`${lan}/winding`);
    expect((await request.post(`${lan}/api/machine/connect`, { data: { port: pair.near } })).status()).toBe(
      200,
    );
    await expect(page.getByRole('button', { name: 'Emergency stop', exact: true })).toBeVisible();
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});
