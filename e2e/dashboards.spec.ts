// Accounts, dashboards, sharing and working together, in Chromium against one real core: several
// browser contexts are several people (an admin, two editors, an anonymous shop-floor screen).
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';
import { ADMIN_EMAIL, type Core, PASSWORD, signIn, startSignedInCore } from './support/towpath-core.ts';

let core: Core;
const contexts: BrowserContext[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  core = await startSignedInCore();
});

test.afterAll(async () => {
  for (const context of contexts) await context.close();
  await core.stop();
});

/** A person's own browser; axe is injected as a script, so those contexts bypass the page CSP. */
async function person(
  browser: Browser,
  options: { bypassCSP?: boolean } = { bypassCSP: true },
): Promise<Page> {
  const context = await browser.newContext({ ...options, viewport: { width: 1400, height: 900 } });
  contexts.push(context);
  return context.newPage();
}

async function noSeriousViolations(page: Page, what: string) {
  expect(await seriousAxeViolations(page), what).toEqual([]);
}

const EDITOR = 'editor@towpath.test';
const EDITOR2 = 'second.editor@towpath.test';
let admin: Page;
let editor: Page;
let dashboardUrl = '';
let firstLink = '';

test('an admin invites an editor, who accepts, signs in and builds a dashboard', async ({ browser }) => {
  admin = await person(browser);
  await page_signIn(admin, ADMIN_EMAIL);
  // The first admin has the ready Winder dashboard.
  await expect(admin.getByRole('link', { name: 'Winder' })).toBeVisible();

  await admin.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Admin' }).click();
  await admin.getByRole('tab', { name: 'Invites' }).click();
  await admin.getByLabel('Email').fill(EDITOR);
  await admin.getByLabel('Role').selectOption('EDITOR');
  await admin.getByRole('button', { name: 'Create invite' }).click();
  const inviteLink = await admin.getByLabel('Invite link').inputValue();
  expect(inviteLink).toMatch(new RegExp(`^${core.url}/invite/[A-Za-z0-9_-]{43}$`));
  await expect(admin.getByRole('cell', { name: EDITOR, exact: true })).toBeVisible();

  editor = await person(browser);
  await editor.goto(inviteLink);
  await editor.getByLabel('Password').fill('weak');
  await expect(editor.getByText('At least 12 characters (missing)')).toBeAttached();
  await expect(editor.getByRole('button', { name: 'Accept invitation' })).toBeDisabled();
  await editor.getByLabel('Password').fill(PASSWORD);
  await editor.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(editor.getByRole('heading', { level: 1, name: 'Dashboards' })).toBeVisible();
  // Signed in as the new account; sign out and back in with the new password.
  await editor.getByRole('button', { name: 'Sign out' }).click();
  await page_signIn(editor, EDITOR);
  // Editors never see the admin area.
  await expect(
    editor.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Admin' }),
  ).toHaveCount(0);

  await editor.getByRole('button', { name: 'New dashboard' }).click();
  await editor.getByLabel('Title').fill('Line 3');
  await editor.getByRole('button', { name: 'Create' }).click();
  await expect(editor.getByRole('heading', { level: 1, name: 'Editing Line 3' })).toBeVisible();
  dashboardUrl = editor.url().replace(/\/edit$/, '');

  await editor.getByRole('button', { name: 'Add datasource' }).click();
  const sources = editor.getByRole('dialog', { name: 'Datasources' });
  await sources.getByLabel('Datasource title').fill('Notes');
  await sources.getByLabel('Datasource type').selectOption('static');
  await sources.getByLabel('Value (JSON)').fill('{"text": "Mandrel M-150 booked until Friday"}');
  await sources.getByRole('button', { name: 'Apply datasource' }).click();
  await expect(sources.getByText('Notes (static) · connected')).toBeVisible();
  await sources.getByRole('button', { name: 'Close' }).click();

  await editor.getByRole('button', { name: 'Add pane' }).click();
  await editor.getByRole('button', { name: 'Add widget' }).click();
  const widget = editor.getByRole('dialog', { name: /Widget/ });
  await widget.getByLabel('Widget title').fill('Shift note');
  await widget.getByLabel('Value', { exact: true }).fill('Notes.text');
  await widget.getByRole('button', { name: 'Apply widget' }).click();
  // The editor previews the widget with the datasource's value at once.
  await expect(editor.getByRole('region', { name: 'Shift note' })).toContainText(
    'Mandrel M-150 booked until Friday',
  );
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(editor.getByText('Saved revision 2')).toBeVisible();

  await editor.getByRole('button', { name: 'View' }).click();
  await expect(editor.getByRole('region', { name: 'Shift note' })).toContainText(
    'Mandrel M-150 booked until Friday',
  );
});

test('sharing by link: refused until the policy allows, seen anonymously, and cut by rotating the link', async ({
  browser,
}) => {
  await editor.goto(dashboardUrl);
  await editor.getByRole('button', { name: 'Share' }).click();
  const share = editor.getByRole('dialog', { name: /Share/ });
  const visibility = share.getByRole('radiogroup', { name: 'Visibility' });
  // Each radio is named by its word; the hint is its description.
  for (const name of ['Private', 'Link', 'Public'])
    await expect(visibility.getByRole('radio', { name, exact: true })).toHaveCount(1);
  await expect(visibility.getByRole('radio', { name: 'Link', exact: true })).toHaveAccessibleDescription(
    'Also anyone with the link, without an account.',
  );
  // A refused change leaves the choice where it was, so this is a click, not a check.
  await visibility.getByRole('radio', { name: 'Link', exact: true }).click();
  // Editors may not publish by default: the refusal explains the policy.
  await expect(share.getByRole('alert')).toContainText('Editors are not allowed to publish dashboards');
  await expect(share.getByRole('alert')).toContainText('auth policy lets editors publish');
  await expect(visibility.getByRole('radio', { name: 'Private', exact: true })).toBeChecked();

  await admin.getByRole('tab', { name: 'Policy' }).click();
  await admin.getByLabel('Editors may publish dashboards (Link and Public)').check();
  await admin.getByRole('button', { name: 'Save policy' }).click();
  await expect(admin.getByText('Policy saved.')).toBeVisible();

  // The choice shows once the server has taken it.
  await visibility.getByRole('radio', { name: 'Link', exact: true }).click();
  await expect(visibility.getByRole('radio', { name: 'Link', exact: true })).toBeChecked();
  firstLink = await share.getByLabel('Share link').inputValue();
  expect(firstLink).toMatch(new RegExp(`^${core.url}/s/[A-Za-z0-9_-]{32}$`));

  // The shop-floor screen: no account, and the page's own strict CSP in force.
  const floor = await person(browser, {});
  const violations: string[] = [];
  floor.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await floor.goto(firstLink);
  await expect(floor.getByRole('region', { name: 'Shift note' })).toContainText(
    'Mandrel M-150 booked until Friday',
  );
  expect(violations).toEqual([]);

  await share.getByRole('button', { name: 'Rotate link' }).click();
  await expect(share.getByRole('status')).toHaveText('A new link was made; the old one no longer works');
  const secondLink = await share.getByLabel('Share link').inputValue();
  expect(secondLink).not.toBe(firstLink);
  // The open anonymous view re-reads within 30 s and stops.
  await expect(floor.getByRole('alert')).toHaveText('This dashboard is no longer available', {
    timeout: 35_000,
  });
  await expect(floor.getByRole('region', { name: 'Shift note' })).toHaveCount(0);
  const fresh = await person(browser, {});
  await fresh.goto(secondLink);
  await expect(fresh.getByRole('region', { name: 'Shift note' })).toContainText(
    'Mandrel M-150 booked until Friday',
  );
  await fresh.goto(firstLink);
  await expect(fresh.getByRole('alert')).toHaveText('This dashboard is no longer available');
});

test('two editors: the second hears of the first save before saving, and a conflict ends in overwrite or reload', async ({
  browser,
}) => {
  await admin.getByRole('tab', { name: 'Users' }).click();
  const create = admin.getByRole('region', { name: 'Create a user' });
  await create.getByLabel('Email').fill(EDITOR2);
  await create.getByLabel('Password').fill(PASSWORD);
  await create.getByLabel('Role').selectOption('EDITOR');
  await create.getByRole('button', { name: 'Create user' }).click();
  await expect(admin.getByRole('cell', { name: EDITOR2, exact: true })).toBeVisible();

  const share = editor.getByRole('dialog', { name: /Share/ });
  await share.getByLabel("Person's email").fill(EDITOR2);
  await share.getByLabel('Access level').selectOption('EDITOR');
  await share.getByRole('button', { name: 'Add person' }).click();
  await expect(share.getByRole('cell', { name: EDITOR2, exact: true })).toBeVisible();
  await share.getByRole('button', { name: 'Close' }).click();

  const second = await person(browser);
  await page_signIn(second, EDITOR2);
  await second.getByRole('link', { name: 'Line 3' }).click();
  await second.getByRole('button', { name: 'Edit' }).click();
  await expect(second.getByRole('heading', { name: 'Editing Line 3' })).toBeVisible();
  await editor.getByRole('button', { name: 'Edit' }).click();
  await expect(editor.getByRole('heading', { name: 'Editing Line 3' })).toBeVisible();

  // The first editor renames the dashboard and saves.
  await retitle(editor, 'Line 3 (morning)');
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(editor.getByText('Saved revision 3')).toBeVisible();

  // The second is told at once, by whom, before saving anything.
  const notice = second.getByRole('status').filter({ hasText: 'saved this dashboard' });
  await expect(notice).toContainText(`${EDITOR} saved this dashboard`);
  await expect(notice).toContainText('revision 3');
  await notice.getByRole('button', { name: 'Keep editing' }).click();
  await retitle(second, 'Line 3 (second shift)');
  await second.getByRole('button', { name: 'Save' }).click();
  const conflict = second.getByRole('alert').filter({ hasText: 'changed since you loaded it' });
  await expect(conflict.getByRole('button', { name: 'Reload' })).toBeVisible();
  await conflict.getByRole('button', { name: 'Overwrite' }).click();
  await expect(second.getByText('Saved revision 4')).toBeVisible();
  await expect(second.getByRole('heading', { name: 'Editing Line 3 (second shift)' })).toBeVisible();

  // The first editor hears of that save too, and reloads to it.
  const back = editor.getByRole('status').filter({ hasText: 'saved this dashboard' });
  await expect(back).toContainText('revision 4');
  await back.getByRole('button', { name: 'Reload' }).click();
  await expect(editor.getByRole('heading', { name: 'Editing Line 3 (second shift)' })).toBeVisible();

  // A conflict the first editor resolves by reloading: their unsaved title is dropped by choice.
  await retitle(second, 'Line 3 (late)');
  await second.getByRole('button', { name: 'Save' }).click();
  await expect(second.getByText('Saved revision 5')).toBeVisible();
  await editor
    .getByRole('status')
    .filter({ hasText: 'saved this dashboard' })
    .getByRole('button', { name: 'Keep editing' })
    .click();
  await retitle(editor, 'Line 3 (mine)');
  await editor.getByRole('button', { name: 'Save' }).click();
  await editor
    .getByRole('alert')
    .filter({ hasText: 'changed since you loaded it' })
    .getByRole('button', { name: 'Reload' })
    .click();
  await expect(editor.getByRole('heading', { name: 'Editing Line 3 (late)' })).toBeVisible();
});

test('history restores an older title', async () => {
  await editor.getByRole('button', { name: 'History' }).click();
  const history = editor.getByRole('dialog', { name: 'History' });
  await expect(history.getByText('Revision 5: “Line 3 (late)”')).toBeVisible();
  await history.getByRole('button', { name: 'Preview revision 2' }).click();
  await expect(
    history.getByRole('region', { name: 'Revision preview' }).getByRole('heading', { name: 'Line 3' }),
  ).toBeVisible();
  await history.getByRole('button', { name: 'Restore revision 2' }).click();
  await expect(editor.getByText('Restored as revision 6')).toBeVisible();
  await expect(editor.getByRole('heading', { name: 'Editing Line 3', exact: true })).toBeVisible();
  await editor.goto(dashboardUrl);
  await expect(editor.getByRole('heading', { level: 1, name: 'Line 3', exact: true })).toBeVisible();
});

test('no serious accessibility violations on any screen or dialog; screenshots for the README', async ({
  browser,
}) => {
  const visitor = await person(browser);
  await visitor.goto(`${core.url}/sign-in`);
  await expect(visitor.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await noSeriousViolations(visitor, 'sign-in');

  await editor.goto(`${core.url}/dashboards`);
  await expect(editor.getByRole('link', { name: 'Line 3' })).toBeVisible();
  await noSeriousViolations(editor, 'list');
  await editor.getByRole('button', { name: 'New dashboard' }).click();
  await noSeriousViolations(editor, 'new dashboard dialog');
  await editor.getByRole('button', { name: 'Close' }).click();

  // The demo dashboard shipped in resources/, with every common widget kind, imported from the list.
  await editor
    .getByTestId('import-json-file')
    .setInputFiles('resources/dashboards/shop-floor.towpath-dashboard.json');
  await expect(editor.getByRole('heading', { name: 'Editing Shop floor' })).toBeVisible();
  await expect(editor.getByRole('region', { name: 'Progress' })).toContainText('64.2 %');
  await noSeriousViolations(editor, 'editor with every common widget');
  await editor.screenshot({ path: readmeScreenshot('editor.png') });
  await editor.getByRole('button', { name: 'View' }).click();
  await expect(editor.getByRole('region', { name: 'Progress' })).toContainText('64.2 %');
  await expect(editor.getByRole('region', { name: 'Remaining' })).toContainText('0:22:05');
  await expect(editor.getByRole('region', { name: 'Winders' })).toContainText('Winder 2');
  await expect(
    editor.getByRole('region', { name: 'Hours wound' }).getByRole('cell', { name: '6.5' }),
  ).toBeVisible();
  await noSeriousViolations(editor, 'viewer with every common widget');
  await editor.screenshot({ path: readmeScreenshot('dashboard-view.png') });

  await editor.goto(dashboardUrl);
  await expect(editor.getByRole('region', { name: 'Shift note' })).toContainText('Mandrel');
  await noSeriousViolations(editor, 'viewer');
  for (const [button, dialog] of [
    ['Share', /Share/],
    ['History', 'History'],
  ] as const) {
    await editor.getByRole('button', { name: button }).click();
    await expect(editor.getByRole('dialog', { name: dialog })).toBeVisible();
    await noSeriousViolations(editor, `viewer ${button} dialog`);
    await editor.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  }

  await editor.getByRole('button', { name: 'Edit' }).click();
  await expect(editor.getByRole('region', { name: 'Shift note' })).toBeVisible();
  await noSeriousViolations(editor, 'editor');
  for (const [button, dialog] of [
    ['Add widget', /Widget/],
    ['Add datasource', 'Datasources'],
    ['Settings', 'Dashboard settings'],
    ['Share', /Share/],
    ['History', 'History'],
  ] as const) {
    await editor.getByRole('button', { name: button, exact: true }).click();
    await expect(editor.getByRole('dialog', { name: dialog })).toBeVisible();
    await noSeriousViolations(editor, `editor ${button} dialog`);
    await editor.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  }

  for (const tab of [
    'Users',
    'Invites',
    'Policy',
    'Credentials',
    'Brokers',
    'Service accounts',
    'Audit',
    'Diagnostics',
    'Metrics',
  ]) {
    await admin.getByRole('tab', { name: tab }).click();
    await expect(admin.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    await expect(admin.getByRole('tabpanel')).not.toBeEmpty();
    await noSeriousViolations(admin, `admin ${tab} tab`);
    if (tab === 'Users') await admin.screenshot({ path: readmeScreenshot('admin-users.png') });
  }
  await admin.goto(firstLink);
  await expect(admin.getByRole('alert')).toHaveText('This dashboard is no longer available');
  await noSeriousViolations(admin, 'shared view, link gone');
});

test('the owner hands the dashboard to another editor and keeps edit access', async () => {
  await editor.goto(dashboardUrl);
  await editor.getByRole('button', { name: 'Share' }).click();
  const share = editor.getByRole('dialog', { name: /Share/ });
  await share.getByRole('button', { name: `Make ${EDITOR2} the owner` }).click();
  const newOwner = share.getByRole('row').filter({ hasText: EDITOR2 });
  await expect(newOwner.getByRole('cell', { name: 'Owner' })).toBeVisible();
  await expect(share.getByLabel(`Access for ${EDITOR}`)).toHaveValue('EDITOR');
  await share.getByRole('button', { name: 'Close' }).click();
  await editor.goto(`${core.url}/dashboards`);
  await expect(
    editor.getByRole('region', { name: 'Shared with me' }).getByRole('link', { name: 'Line 3', exact: true }),
  ).toBeVisible();
});

async function retitle(page: Page, title: string) {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Dashboard settings' });
  await dialog.getByLabel('Dashboard title').fill(title);
  await dialog.getByRole('button', { name: 'Apply settings' }).click();
}

async function page_signIn(page: Page, email: string) {
  await signIn(page, core.url, email);
}
