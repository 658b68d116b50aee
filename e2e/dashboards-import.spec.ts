// Import and export of dashboards, trusted widgets in their sandboxed frame, the ready Winder
// dashboard and small screens — in Chromium against a real core.
import { readFile } from 'node:fs/promises';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_EMAIL, type Core, signIn, startSignedInCore } from './support/towpath-core.ts';

let core: Core;
let context: BrowserContext;
let admin: Page;
const cspViolations: string[] = [];

test.describe.configure({ mode: 'serial' });
test.beforeAll(async ({ browser }) => {
  core = await startSignedInCore();
  // No CSP bypass here: everything below must work under the app's own policy.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  admin = await context.newPage();
  admin.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await signIn(admin, core.url, ADMIN_EMAIL);
});
test.afterAll(async () => {
  await context.close();
  await core.stop();
});

const SCRIPT = `
document.body.dataset.isolated = (function () { try { return String(!parent.document); } catch (e) { return 'true'; } })();
addEventListener('message', function (event) {
  var data = event.data;
  if (!data || data.type !== 'towpath:update') return;
  document.getElementById('out').textContent = 'Got ' + data.snapshot.datasources.notes.text + ' via ' + data.snapshot.titles.Notes;
});`;

const EXPORT = {
  format: 'towpath-dashboard',
  formatVersion: 1,
  exportedAt: '2025-03-01T08:15:30.125Z',
  generator: 'towpath 0.4.0',
  dashboard: {
    title: 'Trusted board',
    version: 'towpath 0.4.0',
    image: null,
    datasources: [{ id: 'notes', title: 'Notes', type: 'static', settings: { value: { text: 'hello' } } }],
    columns: 2,
    width: 'md',
    panes: [
      {
        id: 'left',
        title: 'Left',
        layout: { x: 0, y: 0, w: 1, h: 3 },
        widgets: [
          {
            id: 'frame',
            type: 'base',
            title: 'Frame',
            settings: {
              html: '<p id="out">waiting</p>',
              style: '#out { color: rgb(200, 0, 0); }',
              script: SCRIPT,
            },
          },
        ],
      },
      {
        id: 'right',
        title: 'Right',
        layout: { x: 1, y: 0, w: 1, h: 3 },
        widgets: [
          {
            id: 'safe',
            type: 'html',
            title: 'Safe',
            settings: { mode: 'safe_html', html: '<b>bold</b><script>bad()</script>' },
          },
          { id: 'note', type: 'text', title: 'Note', settings: { valuePath: 'Notes.text', size: 'large' } },
        ],
      },
    ],
    // Trusted dashboard CSS: confined to the dashboard, even when it tries to break out.
    settings: {
      style:
        '.widget__title { color: rgb(1, 2, 3); } body { background-color: rgb(255, 0, 0); } } .app__header { display: none; }',
    },
  },
};

async function importFile(page: Page, name: string, text: string) {
  await page
    .getByTestId('import-json-file')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

test('a bad import file is refused with the first problem, and trusted content needs TRUSTED mode', async () => {
  await importFile(admin, 'broken.json', '{"format": "towpath-dashboard",');
  await expect(admin.getByRole('alert')).toHaveText('Import file is not valid JSON');
  await importFile(admin, 'newer.json', JSON.stringify({ ...EXPORT, formatVersion: 2 }));
  await expect(admin.getByRole('alert')).toHaveText('This export needs a newer Towpath (format version 2)');
  await importFile(admin, 'board.json', JSON.stringify(EXPORT));
  await expect(admin.getByRole('alert')).toHaveText('Trusted content is not allowed in SAFE execution mode');
});

test('imported into a new dashboard, a trusted widget runs in its sandboxed frame and hears updates', async () => {
  await admin.goto(`${core.url}/admin/policy`);
  await admin.getByLabel('Execution mode').selectOption('TRUSTED');
  await admin.getByRole('button', { name: 'Save policy' }).click();
  await expect(admin.getByText('Policy saved.')).toBeVisible();
  await admin.goto(`${core.url}/dashboards`);
  await importFile(admin, 'board.json', JSON.stringify(EXPORT));
  await expect(admin.getByRole('heading', { name: 'Editing Trusted board' })).toBeVisible();
  await admin.getByRole('button', { name: 'View' }).click();
  await expect(admin.getByRole('heading', { level: 1, name: 'Trusted board' })).toBeVisible();

  const frame = admin.frameLocator('iframe[title="Frame"]');
  await expect(frame.locator('#out')).toHaveText('Got hello via notes');
  await expect(frame.locator('#out')).toHaveCSS('color', 'rgb(200, 0, 0)');
  await expect(frame.locator('body')).toHaveAttribute('data-isolated', 'true');
  await expect(admin.locator('iframe[title="Frame"]')).toHaveAttribute('sandbox', 'allow-scripts');
  const safe = admin.getByRole('region', { name: 'Safe' });
  await expect(safe.locator('b')).toHaveText('bold');
  await expect(safe.locator('script')).toHaveCount(0);
  await expect(admin.getByRole('region', { name: 'Note' })).toContainText('hello');
  await expect(admin.getByRole('region', { name: 'Note' }).getByRole('heading')).toHaveCSS(
    'color',
    'rgb(1, 2, 3)',
  );
  await expect(admin.locator('body')).not.toHaveCSS('background-color', 'rgb(255, 0, 0)');
  await expect(admin.getByRole('banner')).toBeVisible();
  expect(cspViolations).toEqual([]);
});

test('export gives back the imported document, and small screens stack the panes', async () => {
  const downloading = admin.waitForEvent('download');
  await admin.getByRole('button', { name: 'Export JSON' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('trusted-board.towpath-dashboard.json');
  const exported = JSON.parse(await readFile((await download.path()) as string, 'utf8'));
  expect(exported).toMatchObject({ format: 'towpath-dashboard', formatVersion: 1 });
  expect({ ...exported.dashboard, version: EXPORT.dashboard.version }).toEqual(EXPORT.dashboard);

  const left = admin.locator('[data-pane-id="left"]');
  const right = admin.locator('[data-pane-id="right"]');
  const wide = [await left.boundingBox(), await right.boundingBox()];
  expect(wide[1]?.x).toBeGreaterThan((wide[0]?.x ?? 0) + 10);
  await admin.setViewportSize({ width: 480, height: 900 });
  await expect(async () => {
    const [a, b] = [await left.boundingBox(), await right.boundingBox()];
    expect(Math.round(b?.x ?? -1)).toBe(Math.round(a?.x ?? -2));
    expect(b?.y).toBeGreaterThanOrEqual((a?.y ?? 0) + (a?.height ?? 0));
  }).toPass();
  await admin.setViewportSize({ width: 1280, height: 900 });
});

test('the first admin has the Winder dashboard with its machine widgets and clear placeholders', async () => {
  await admin.goto(`${core.url}/dashboards`);
  await admin.getByRole('link', { name: 'Winder' }).click();
  for (const name of [
    'Job',
    'Progress',
    'Lines sent',
    'Remaining time',
    'Connection',
    'Job state',
    'Last error',
  ])
    await expect(admin.getByRole('region', { name, exact: true })).toBeVisible();
  // Without a value yet, a widget shows — and why.
  await expect(admin.getByRole('region', { name: 'Remaining time' })).toContainText('—');
});

test('an untrusted base widget keeps its own style in its frame, and none of its scripts runs', async () => {
  const styled = {
    ...EXPORT,
    dashboard: {
      ...EXPORT.dashboard,
      title: 'Styled board',
      settings: {},
      panes: [
        {
          id: 'only',
          title: 'Only',
          layout: { x: 0, y: 0, w: 1, h: 3 },
          widgets: [
            {
              id: 'styled',
              type: 'base',
              title: 'Styled',
              settings: {
                html: '<p id="styled">styled</p><img src="data:," onerror="document.body.dataset.ran = \'handler\'"><script>document.body.dataset.ran = "script"</script>',
                style: '#styled { color: rgb(0, 120, 0); }',
              },
            },
            { id: 'below', type: 'text', title: 'Below', settings: { valuePath: 'Notes.text' } },
          ],
        },
      ],
    },
  };
  cspViolations.length = 0;
  await admin.goto(`${core.url}/dashboards`);
  await importFile(admin, 'styled.json', JSON.stringify(styled));
  await expect(admin.getByRole('heading', { name: 'Editing Styled board' })).toBeVisible();
  await admin.getByRole('button', { name: 'View' }).click();
  const frame = admin.frameLocator('iframe[title="Styled"]');
  await expect(frame.locator('#styled')).toHaveCSS('color', 'rgb(0, 120, 0)');
  await expect(frame.locator('body')).not.toHaveAttribute('data-ran', /./);
  await expect(admin.locator('iframe[title="Styled"]')).toHaveAttribute('sandbox', 'allow-scripts');
  // The frame and the text below it do not fit the pane: the pane takes focus, and the keyboard
  // scrolls the text into view.
  const pane = admin.locator('.pane');
  await expect(pane).toHaveAttribute('tabindex', '0');
  await expect(pane).toHaveAccessibleName('Only');
  await expect(admin.getByRole('region', { name: 'Below' })).not.toBeInViewport();
  await pane.focus();
  await admin.keyboard.press('End');
  await expect(admin.getByRole('region', { name: 'Below' })).toBeInViewport();
  // What the policy refused is the widget's own script and handler, nothing of its style or the app.
  for (const violation of cspViolations) expect(violation).toMatch(/script/i);
  expect(cspViolations.join('\n')).not.toMatch(/style-src/);
});
