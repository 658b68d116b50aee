// Signing in, registration by policy, password resets handed over by an admin, and a session that
// ends while the page is open — in Chromium against a real core.
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
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

async function person(browser: import('@playwright/test').Browser): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  return context.newPage();
}

let admin: Page;

test('a wrong password is refused plainly; a right one signs in and survives a reload', async ({
  browser,
}) => {
  admin = await person(browser);
  await admin.goto(`${core.url}/sign-in`);
  await admin.getByLabel('Email').fill(ADMIN_EMAIL);
  await admin.getByLabel('Password').fill('Wrong-passw0rd!');
  await admin.getByRole('button', { name: 'Sign in' }).click();
  await expect(admin.getByRole('alert')).toHaveText('Invalid credentials');
  // Registration is disabled by default: the sign-in screen offers none.
  await expect(admin.getByRole('link', { name: 'Create one' })).toHaveCount(0);

  await signIn(admin, core.url, ADMIN_EMAIL);
  await admin.reload();
  await expect(admin.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(admin.getByText(`${ADMIN_EMAIL} (admin)`)).toBeVisible();
});

test('open registration: the policy is explained while typing, and the new account signs in', async ({
  browser,
}) => {
  const visitor = await person(browser);
  await visitor.goto(`${core.url}/register`);
  await expect(visitor.getByText('Registration is disabled here')).toBeVisible();

  await admin.goto(`${core.url}/admin/policy`);
  await admin.getByLabel('Registration').selectOption('OPEN');
  await admin.getByRole('button', { name: 'Save policy' }).click();
  await expect(admin.getByText('Policy saved.')).toBeVisible();

  await visitor.goto(`${core.url}/sign-in`);
  await visitor.getByRole('link', { name: 'Create one' }).click();
  await visitor.getByLabel('Email').fill('walk.in@towpath.test');
  const password = visitor.getByLabel('Password');
  const rules = visitor.getByRole('list').filter({ hasText: 'At least 12 characters' });
  await password.fill('short');
  await expect(rules.getByText('At least 12 characters (missing)')).toBeAttached();
  await expect(rules.getByText('An uppercase letter (A–Z) (missing)')).toBeAttached();
  await expect(visitor.getByRole('button', { name: 'Create account' })).toBeDisabled();
  await password.fill('longer-password1');
  await expect(rules.getByText('At least 12 characters (met)')).toBeAttached();
  await expect(rules.getByText('An uppercase letter (A–Z) (missing)')).toBeAttached();
  await password.fill(PASSWORD);
  await visitor.getByRole('button', { name: 'Create account' }).click();
  await expect(visitor.getByRole('heading', { level: 1, name: 'Dashboards' })).toBeVisible();
  await expect(visitor.getByText('walk.in@towpath.test (viewer)')).toBeVisible();
  // Viewers create nothing.
  await expect(visitor.getByRole('button', { name: 'New dashboard' })).toHaveCount(0);
});

test('an admin hands over a reset link; the old password stops working and the new one signs in', async ({
  browser,
}) => {
  await admin.goto(`${core.url}/admin/users`);
  await admin.getByRole('button', { name: 'Reset link for walk.in@towpath.test' }).click();
  const link = await admin.getByLabel('Reset link').inputValue();
  expect(link).toMatch(new RegExp(`^${core.url}/reset/[A-Za-z0-9_-]{43}$`));

  const user = await person(browser);
  await user.goto(link);
  await user.getByLabel('New password').fill('An0ther-password!');
  await user.getByRole('button', { name: 'Set password' }).click();
  await expect(user.getByRole('status').filter({ hasText: 'Your password has been changed' })).toBeVisible();
  // A used link is refused with the server's message.
  await user.goto(link);
  await user.getByLabel('New password').fill('Th1rd-password!!');
  await user.getByRole('button', { name: 'Set password' }).click();
  await expect(user.getByRole('alert')).toHaveText('Invalid or expired reset token');

  await user.goto(`${core.url}/sign-in`);
  await user.getByLabel('Email').fill('walk.in@towpath.test');
  await user.getByLabel('Password').fill(PASSWORD);
  await user.getByRole('button', { name: 'Sign in' }).click();
  await expect(user.getByRole('alert')).toHaveText('Invalid credentials');
  await signIn(user, core.url, 'walk.in@towpath.test', 'An0ther-password!');
});

test('a session the server stops accepting ends with a clear message, wherever the person is', async ({
  browser,
}) => {
  const user = await person(browser);
  await signIn(user, core.url, 'walk.in@towpath.test', 'An0ther-password!');
  await admin.goto(`${core.url}/admin/users`);
  // The box follows the server's answer, so it is clicked and then awaited.
  await admin.getByLabel('walk.in@towpath.test is active').click();
  await expect(admin.getByLabel('walk.in@towpath.test is active')).not.toBeChecked();

  await user.reload();
  await expect(user.getByRole('alert')).toContainText('Your session has ended');
  await expect(user.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
  await user.getByRole('alert').getByRole('link', { name: 'Sign in' }).click();
  await expect(user).toHaveURL(/\/sign-in\?next=%2Fdashboards$/);
  await expect(user.getByRole('status').filter({ hasText: 'Your session has ended' })).toBeVisible();
  await user.getByLabel('Email').fill('walk.in@towpath.test');
  await user.getByLabel('Password').fill('An0ther-password!');
  await user.getByRole('button', { name: 'Sign in' }).click();
  await expect(user.getByRole('alert')).toHaveText('Account is deactivated');
});

test('hostile and broken addresses get the documented answers, never a broken page', async ({ browser }) => {
  const visitor = await person(browser);
  // A malformed escape never reaches the app: the door answers 400 without internals.
  const malformed = await visitor.goto(`${core.url}/s/%ZZ`);
  expect(malformed?.status()).toBe(400);
  expect(await malformed?.text()).not.toMatch(/at .*\.ts|stack/i);
  await visitor.goto(`${core.url}/invite/%E2%80%AE%3Cb%3E`);
  await visitor.getByLabel('Password').fill(PASSWORD);
  await visitor.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(visitor.getByRole('alert')).toHaveText('Invalid or expired invite');
  await visitor.goto(`${core.url}/reset/${'A'.repeat(3000)}`);
  await visitor.getByLabel('New password').fill(PASSWORD);
  await visitor.getByRole('button', { name: 'Set password' }).click();
  await expect(visitor.getByRole('alert')).toHaveText('Invalid or expired reset token');
  // An overlong address is refused by the door's path policy before any page.
  expect((await visitor.goto(`${core.url}/s/${'x'.repeat(5000)}`))?.status()).toBe(403);
  for (const token of ['x'.repeat(200), '%3Cscript%3Ealert(1)%3C%2Fscript%3E', '..%2F..%2Fadmin']) {
    await visitor.goto(`${core.url}/s/${token}`);
    await expect(visitor.getByRole('alert')).toHaveText('This dashboard is no longer available');
  }
  await admin.goto(`${core.url}/dashboards/not-a-dashboard`);
  await expect(admin.getByRole('heading', { name: 'Dashboard not available' })).toBeVisible();
  await admin.goto(`${core.url}/sign-in?next=//evil.example/`);
  await admin.getByLabel('Email').fill(ADMIN_EMAIL);
  await admin.getByLabel('Password').fill(PASSWORD);
  await admin.getByRole('button', { name: 'Sign in' }).click();
  // Only addresses of this app are followed after signing in.
  await expect(admin).toHaveURL(`${core.url}/dashboards`);
});
