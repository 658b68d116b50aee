// The dashboard screens as a new user meets them, in Chromium against a real core that knows its
// public URL: every widget of a pane can be seen, handed-out links are ones a colleague can open.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test';
import { seriousAxeViolations } from './support/axe.ts';
import { ADMIN_EMAIL, type Core, signIn, startSignedInCore } from './support/towpath-core.ts';

const PUBLIC_URL = 'http://winder.shop.test:4001';

let core: Core;
let context: BrowserContext;
let admin: Page;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async ({ browser }) => {
  core = await startSignedInCore({ PUBLIC_URL });
  // axe is injected as a script, so this context bypasses the page CSP.
  context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  admin = await context.newPage();
  await signIn(admin, core.url, ADMIN_EMAIL);
});
test.afterAll(async () => {
  await context.close();
  await core.stop();
});

/** Whether the whole element can be seen: inside every box that clips it. */
async function inView(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const own = element.getBoundingClientRect();
    let top = own.top;
    let bottom = own.bottom;
    for (let box = element.parentElement; box; box = box.parentElement) {
      if (getComputedStyle(box).overflowY === 'visible') continue;
      const clip = box.getBoundingClientRect();
      top = Math.max(top, clip.top);
      bottom = Math.min(bottom, clip.bottom);
    }
    return bottom - top >= own.height - 1;
  });
}

async function importDashboard(page: Page, name: string, text: string) {
  await page.goto(`${core.url}/dashboards`);
  await page
    .getByTestId('import-json-file')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.getByRole('heading', { level: 1, name: /^Editing / })).toBeVisible();
}

const textWidget = (id: string, title: string) => ({
  id,
  type: 'text',
  title,
  settings: { valuePath: `Notes.${id}`, size: 'large' },
});

/** A pane two rows high holding three widgets: more than it can show. */
const CROWDED = {
  format: 'towpath-dashboard',
  formatVersion: 1,
  exportedAt: '2025-03-01T08:15:30.125Z',
  generator: 'towpath 0.4.0',
  dashboard: {
    title: 'Crowded pane',
    version: 'towpath 0.4.0',
    image: null,
    datasources: [
      {
        id: 'notes',
        title: 'Notes',
        type: 'static',
        settings: { value: { a: 'Alpha', b: 'Bravo', c: 'Charlie' } },
      },
    ],
    columns: 3,
    width: 'md',
    panes: [
      {
        id: 'crowded',
        title: 'Crowded',
        layout: { x: 0, y: 0, w: 1, h: 2 },
        widgets: [textWidget('a', 'First'), textWidget('b', 'Second'), textWidget('c', 'Third')],
      },
    ],
    settings: {},
  },
};

test('a pane with more widgets than fit says how many are below, and shows them when asked', async () => {
  await importDashboard(admin, 'crowded.json', JSON.stringify(CROWDED));
  const check = async (where: string) => {
    const pane = admin.locator('[data-pane-id="crowded"]');
    const third = pane.getByRole('region', { name: 'Third', exact: true });
    expect(await inView(third), `${where}: the third widget starts out of sight`).toBe(false);
    // A sign for the eye (screen readers have every widget already).
    const sign = pane.getByText(/^\d more widgets? below/);
    await expect(sign, `${where}: the pane says widgets are below`).toBeVisible();
    await admin.screenshot({ path: test.info().outputPath(`crowded-pane-${where}.png`) });
    await pane.hover();
    await admin.mouse.wheel(0, 600);
    await expect(sign).toBeHidden();
    expect(await inView(third), `${where}: the third widget is shown once asked`).toBe(true);
  };
  await check('editor');
  await admin.getByRole('button', { name: 'View' }).click();
  await expect(admin.getByRole('heading', { level: 1, name: 'Crowded pane' })).toBeVisible();
  await check('viewer');
  expect(await seriousAxeViolations(admin)).toEqual([]);
});

test('every widget of the bundled demo dashboard is in view or announced below its pane', async () => {
  const demo = await readFile(join('resources', 'dashboards', 'shop-floor.towpath-dashboard.json'), 'utf8');
  await importDashboard(admin, 'shop-floor.json', demo);
  const { dashboard } = JSON.parse(demo) as {
    dashboard: { title: string; panes: { id: string; widgets: { title: string }[] }[] };
  };
  const everyWidgetSeen = async (where: string) => {
    for (const pane of dashboard.panes) {
      const box = admin.locator(`[data-pane-id="${pane.id}"]`);
      await box.scrollIntoViewIfNeeded();
      const sign = await box.getByText(/more widgets? below/).isVisible();
      for (const widget of pane.widgets) {
        const seen = await inView(box.getByRole('region', { name: widget.title, exact: true }));
        expect(seen || sign, `${where}: ${widget.title} is seen or announced`).toBe(true);
      }
    }
  };
  await everyWidgetSeen('editor');
  await admin.screenshot({ path: test.info().outputPath('demo-editor.png'), fullPage: true });
  await admin.getByRole('button', { name: 'View' }).click();
  await expect(admin.getByRole('heading', { level: 1, name: dashboard.title })).toBeVisible();
  for (const width of [1280, 800]) {
    await admin.setViewportSize({ width, height: 900 });
    await everyWidgetSeen(`viewer at ${width} px`);
  }
  await admin.screenshot({ path: test.info().outputPath('demo-viewer-800.png'), fullPage: true });
  await admin.setViewportSize({ width: 1280, height: 900 });
});

test('the share link starts with the public URL, not the loopback address the page was opened on', async () => {
  await admin.goto(`${core.url}/dashboards`);
  await admin.getByRole('link', { name: 'Crowded pane' }).click();
  await admin.getByRole('button', { name: 'Share' }).click();
  const share = admin.getByRole('dialog', { name: /Share/ });
  await share.getByRole('radio', { name: 'Link', exact: true }).click();
  await expect(share.getByRole('radio', { name: 'Link', exact: true })).toBeChecked();
  await expect(share.getByLabel('Share link')).toHaveValue(new RegExp(`^${PUBLIC_URL}/s/[A-Za-z0-9_-]{32}$`));
  expect(await seriousAxeViolations(admin)).toEqual([]);
  await admin.screenshot({ path: test.info().outputPath('share-dialog.png') });
  await share.getByRole('button', { name: 'Close' }).click();
});

test('the owner deletes a dashboard from the list after a confirmation naming it', async () => {
  await admin.goto(`${core.url}/dashboards`);
  const link = admin.getByRole('link', { name: 'Crowded pane' });
  const address = `${core.url}${await link.getAttribute('href')}`;
  await admin.getByRole('button', { name: 'Delete Crowded pane' }).click();
  const confirm = admin.getByRole('dialog', { name: 'Delete “Crowded pane”?' });
  await expect(confirm).toContainText('It cannot be undone.');
  expect(await seriousAxeViolations(admin)).toEqual([]);
  await admin.screenshot({ path: test.info().outputPath('delete-dashboard.png') });
  // Closing the dialog deletes nothing.
  await confirm.getByRole('button', { name: 'Close' }).click();
  await expect(link).toBeVisible();

  await admin.getByRole('button', { name: 'Delete Crowded pane' }).click();
  await confirm.getByRole('button', { name: 'Delete dashboard' }).click();
  await expect(admin.getByRole('status').filter({ hasText: 'Deleted' })).toHaveText(
    'Deleted “Crowded pane”.',
  );
  await expect(link).toHaveCount(0);
  await admin.goto(address);
  await expect(admin.getByRole('alert')).toHaveText('Dashboard not found');
});

test('the audit log names the people and dashboards it knows, with their ids beside them', async () => {
  await admin.goto(`${core.url}/dashboards`);
  const shopFloor = (await admin.getByRole('link', { name: 'Shop floor' }).getAttribute('href'))
    ?.split('/')
    .pop();
  await admin.goto(`${core.url}/admin`);
  await admin.getByRole('tab', { name: 'Audit' }).click();
  const created = admin
    .getByRole('row')
    .filter({ hasText: 'dashboard.created' })
    .filter({ hasText: 'Shop floor' });
  await expect(created).toHaveCount(1);
  const cells = created.getByRole('cell');
  await expect(cells.nth(2)).toContainText(ADMIN_EMAIL);
  await expect(cells.nth(3)).toHaveText(`dashboard Shop floor ${shopFloor}`);
  // A deleted dashboard is known by its id alone.
  const deleted = admin.getByRole('row').filter({ hasText: 'dashboard.deleted' });
  await expect(deleted.getByRole('cell').nth(3)).toHaveText(/^dashboard [^ ]+$/);
  expect(await seriousAxeViolations(admin)).toEqual([]);
  await admin.screenshot({ path: test.info().outputPath('audit-tab.png'), fullPage: true });
});
