// The Tasks area in a real Chromium against a real `towpath serve` and the bridge's fake task host.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, type Page, test } from '@playwright/test';
import { type FakeHost, startFakeHost } from '../bridge/fake-host/server.ts';
import { makeTask } from '../bridge/fake-host/store.ts';
import { type Running, startNode } from '../server/testing/process.ts';

const TOKEN = 'e2e-task-token';

function localDay(offsetDays = 0): string {
  const date = new Date(Date.now() + offsetDays * 86_400_000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

let host: FakeHost;
let dir: string;
const cores: Running[] = [];

async function startCore(env: Record<string, string>): Promise<string> {
  const core = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: join(dir, `data-${cores.length}`),
    HOME: dir,
    XDG_CONFIG_HOME: dir,
    ...env,
  });
  cores.push(core);
  const [, url] = await core.waitFor(/Open (http:\/\/[^/]+)\//);
  return url as string;
}

let lan: string;

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'towpath-e2e-tasks-'));
  const today = localDay();
  host = await startFakeHost({ version: '18.17.0', token: TOKEN, today });
  for (const task of [
    makeTask('wrapMandrel001', 'Wrap mandrel 70 mm', 1, { dueDay: today, timeEstimate: 5_400_000 }),
    makeTask('cureOven000001', 'Load the cure oven', 2, { dueDay: today, notes: 'After lunch' }),
    makeTask('trimEnds000001', 'Trim the tube ends', 3, { dueDay: today, timeSpent: 600_000 }),
    makeTask('nextWeek000001', 'Order more roving', 4, { dueDay: localDay(7) }),
  ])
    host.store.active.set(task.id, task);
  lan = await startCore({ TASK_HOST_URL: host.url, TASK_HOST_TOKEN: TOKEN });
});

test.afterAll(async () => {
  for (const core of cores) core.child.kill('SIGTERM');
  for (const core of cores) expect((await core.finished).code).toBe(0);
  await host.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

const row = (page: Page, title: string) => page.getByRole('listitem', { name: title });

test("shows today's tasks, tracks one with a running clock, and stops", async ({ page }) => {
  await page.goto(`${lan}/tasks`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tasks');
  const today = page.getByRole('region', { name: 'Today' });
  await expect(today.getByRole('listitem')).toHaveCount(3);
  await expect(today).not.toContainText('Order more roving');
  await expect(row(page, 'Wrap mandrel 70 mm')).toContainText('– spent / 1h 30m planned');
  await expect(page.getByText('No task is being tracked')).toBeVisible();

  await page.getByRole('button', { name: 'Start tracking: Wrap mandrel 70 mm' }).click();
  await expect(page.getByTestId('current-title')).toHaveText('Wrap mandrel 70 mm');
  expect(host.store.currentTaskId).toBe('wrapMandrel001');
  const clock = page.getByTestId('current-time');
  await expect(clock).toHaveText(/^0:0\d$/);
  const first = await clock.textContent();
  // The clock runs on between answers from the task app.
  await expect(clock).not.toHaveText(first as string, { timeout: 5000 });
  await expect(row(page, 'Wrap mandrel 70 mm')).toContainText('tracking');

  await page.getByRole('button', { name: 'Set current: Load the cure oven' }).click();
  await expect(page.getByTestId('current-title')).toHaveText('Load the cure oven');
  expect(host.store.currentTaskId).toBe('cureOven000001');

  await page.getByRole('button', { name: 'Stop tracking' }).click();
  await expect(page.getByText('No task is being tracked')).toBeVisible();
  expect(host.store.currentTaskId).toBeNull();
});

test('completes and reopens a task', async ({ page }) => {
  await page.goto(`${lan}/tasks`);
  const done = page.getByRole('checkbox', { name: 'Done: Trim the tube ends' });
  await done.check();
  await expect(done).toBeChecked();
  await expect.poll(() => host.store.active.get('trimEnds000001')?.isDone).toBe(true);
  await expect(page.getByRole('button', { name: 'Start tracking: Trim the tube ends' })).toBeDisabled();
  await done.uncheck();
  await expect(done).not.toBeChecked();
  await expect.poll(() => host.store.active.get('trimEnds000001')?.isDone).toBe(false);
});

test('adds a task with an estimate in the duration forms, and says plainly what is wrong', async ({
  page,
}) => {
  await page.goto(`${lan}/tasks`);
  const form = page.getByRole('region', { name: 'Add a task' });
  await form.getByLabel('Title').fill('Wind layer 3');
  await form.getByLabel('Notes').fill('helical 45°');
  await form.getByLabel('Estimate').fill('1.5h');
  await form.getByRole('button', { name: 'Add task' }).click();
  await expect(form.getByRole('alert')).toHaveText(
    /timeEstimate: must be milliseconds or a duration such as 1h30m, 45m or 1d2h/,
  );
  await form.getByLabel('Estimate').fill('1h30m');
  await form.getByRole('button', { name: 'Add task' }).click();
  await expect(form.getByRole('status')).toHaveText('Added “Wind layer 3”.');
  await expect(form.getByLabel('Title')).toHaveValue('');
  const created = [...host.store.active.values()].find((task) => task.title === 'Wind layer 3');
  expect(created).toMatchObject({ notes: 'helical 45°', timeEstimate: 5_400_000, dueDay: localDay() });
  // Planned for today, so it is in the list it was added beside.
  await expect(row(page, 'Wind layer 3')).toBeVisible();
});

test('every control has a label, axe finds nothing serious, and it fits a narrow window', async ({
  page,
}) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(`${lan}/tasks`);
  // The three due today, and the one added above (planned for today).
  await expect(page.getByRole('region', { name: 'Today' }).getByRole('listitem')).toHaveCount(4);
  const axe = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const violations = (await page.evaluate(
    `${axe}\n;axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
  )) as { id: string; impact: string }[];
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const unnamed = await page.evaluate(
    () =>
      [...document.querySelectorAll('main button, main input, main textarea')].filter(
        (element) =>
          (element as HTMLElement).innerText === '' && !(element as HTMLInputElement).labels?.length,
      ).length,
  );
  expect(unnamed).toBe(0);
});

test('a browser elsewhere on the LAN is told the Tasks page is for the workstation, page and API alike', async () => {
  // A colleague's browser reaching the workstation by its LAN name (resolved here to loopback).
  const lanBrowser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--host-resolver-rules=MAP winder.shop.test 127.0.0.1'],
  });
  try {
    const page = await lanBrowser.newPage();
    const address = lan.replace('127.0.0.1', 'winder.shop.test');
    await page.goto(`${address}/tasks`);
    const alert = page.getByRole('alert').first();
    await expect(alert).toContainText('Tasks are only available on the workstation itself');
    await expect(alert).toContainText('open Tasks in the Towpath window on that PC');
    await expect(page.getByText('Misdirected request')).toHaveCount(0);
    await expect(alert.getByRole('button', { name: 'Try again' })).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('tasks-from-the-lan.png') });

    // Opening a workstation-only address itself: a page saying why, still 421.
    const answer = await page.goto(`${address}/api/tasks/today`);
    expect(answer?.status()).toBe(421);
    await expect(
      page.getByRole('heading', { level: 1, name: 'This page is only available on the workstation itself' }),
    ).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('misdirected-page.png') });
    const axe = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    // The page's own CSP forbids scripts: axe runs in a copy of its HTML without it.
    const html = await page.content();
    await page.setContent(html);
    const violations = (await page.evaluate(
      `${axe}\n;axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact })))`,
    )) as { id: string; impact: string }[];
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  } finally {
    await lanBrowser.close();
  }
});

test('says plainly when the task app rejects the token or is not running', async ({ page }) => {
  const wrongToken = await startCore({ TASK_HOST_URL: host.url, TASK_HOST_TOKEN: 'not-the-token' });
  await page.goto(`${wrongToken}/tasks`);
  await expect(page.getByRole('alert').first()).toContainText('The task app rejected the access token');

  await host.close();
  await page.goto(`${lan}/tasks`);
  const alert = page.getByRole('alert').first();
  await expect(alert).toContainText('The task app is not running');
  await expect(alert).toContainText('Start Super Productivity with its local REST API enabled');
  await expect(alert.getByRole('button', { name: 'Try again' })).toBeVisible();
});
