// The application shell in a real Chromium against a real `towpath serve`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import pkg from '../package.json' with { type: 'json' };
import { type Running, startNode } from '../server/testing/process.ts';

let core: Running;
let lan: string;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'towpath-e2e-'));
  core = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
  });
  const [, url] = await core.waitFor(/Open (http:\/\/[^/]+)\//);
  lan = url as string;
});

test.afterAll(async () => {
  core.child.kill('SIGTERM');
  const done = await core.finished;
  expect(done.code).toBe(0);
  await rm(dataDir, { recursive: true, force: true });
});

test('status bar shows both doors healthy, and the winding door red once it stops', async ({
  page,
  request,
}, testInfo) => {
  await page.goto(`${lan}/`);
  await expect(page.getByRole('link', { name: 'Towpath' })).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Areas' });
  for (const area of ['Winding', 'Dashboards', 'Tasks']) {
    await expect(nav.getByRole('link', { name: area })).toBeVisible();
  }
  // Admin screens are for signed-in admins only.
  await expect(nav.getByRole('link', { name: 'Admin' })).toHaveCount(0);

  const lanDoor = page.getByTestId('door-lan');
  const windingDoor = page.getByTestId('door-winding');
  await expect(lanDoor).toHaveAttribute('data-state', 'up');
  await expect(windingDoor).toHaveAttribute('data-state', 'up');
  await expect(page.getByTestId('version')).toHaveText(`Towpath ${pkg.version}`);
  await testInfo.attach('both-doors-healthy', { body: await page.screenshot(), contentType: 'image/png' });

  const stopped = await request.post(`${lan}/api/doors/winding/stop`, { data: {} });
  expect(stopped.ok()).toBe(true);
  await expect(windingDoor).toHaveAttribute('data-state', 'down', { timeout: 5000 });
  await expect(windingDoor).toHaveAttribute('title', /Winding door not answering/);
  await expect(lanDoor).toHaveAttribute('data-state', 'up');
  const screenshot = await page.screenshot({ path: testInfo.outputPath('winding-door-down.png') });
  await testInfo.attach('winding-door-down', { body: screenshot, contentType: 'image/png' });

  await request.post(`${lan}/api/doors/winding/start`, { data: {} });
  await expect(windingDoor).toHaveAttribute('data-state', 'up', { timeout: 5000 });
});

test('areas are addresses: navigating, reloading and going back all work', async ({ page }) => {
  await page.goto(`${lan}/`);
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Dashboards' }).click();
  await expect(page).toHaveURL(`${lan}/dashboards`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboards');
  await expect(page.getByRole('link', { name: 'Dashboards' })).toHaveAttribute('aria-current', 'page');

  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboards');

  await page.goBack();
  await expect(page).toHaveURL(`${lan}/`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Towpath');

  await page.goto(`${lan}/no-such-page`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found');
});

test('the page runs under its Content-Security-Policy without violations', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') violations.push(message.text());
  });
  const response = await page.goto(`${lan}/winding`);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
  await expect(page.getByTestId('door-lan')).toHaveAttribute('data-state', 'up');
  expect(violations).toEqual([]);
});
