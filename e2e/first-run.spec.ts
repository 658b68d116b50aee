// The first admin on a fresh workstation, created from the register page with the setup code the
// core printed — in Chromium against a real core with no accounts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { PASSWORD } from './support/towpath-core.ts';

let dataDir: string;
let core: Awaited<ReturnType<typeof startCore>>;

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'towpath-first-run-'));
  core = await startCore({ TOWPATH_DATA_DIR: dataDir });
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
  await rm(dataDir, { recursive: true, force: true });
});

test('a missing setup code and a wrong one are told apart; the right one makes the first admin', async ({
  browser,
}) => {
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  const code = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
  await page.goto(`${core.lan}/register`);
  await expect(page.getByRole('heading', { level: 1, name: 'Create the first admin' })).toBeVisible();
  await page.getByLabel('Email').fill('first@towpath.test');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  const submit = page.getByRole('button', { name: 'Create account' });

  await submit.click();
  await expect(page.getByRole('alert')).toHaveText('Enter the setup code to create the first admin.');

  await page.getByLabel('Setup code').fill('AAAA-BBBB-CCCC-DDDD-EEEE');
  await submit.click();
  await expect(page.getByRole('alert')).toContainText('That setup code is wrong');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('first-run-wrong-code.png') });

  await page.getByLabel('Setup code').fill(code.toLowerCase());
  await submit.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboards' })).toBeVisible();
  await expect(page.getByText('first@towpath.test (admin)')).toBeVisible();
  await context.close();
});
