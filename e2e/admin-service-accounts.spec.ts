// The admin's service accounts tab in Chromium against a real core: create an account with scopes,
// issue a token (shown once, copied), rotate and revoke it, change scopes and the active state, and
// delete the account — each step checked against what the token itself may then do over GraphQL.
import { expect, type Page, test } from '@playwright/test';
import { gql } from '../server/testing/graphql.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { ADMIN_EMAIL, type Core, signIn, startSignedInCore } from './support/towpath-core.ts';

let core: Core;

// bypassCSP: axe-core is injected into the page as a script.
test.use({ bypassCSP: true, viewport: { width: 1400, height: 1000 } });

test.beforeAll(async () => {
  core = await startSignedInCore();
});
test.afterAll(async () => {
  await core.stop();
});

/** What a service-account token gets from the runtime metrics (OPS_READ): the data or the error code. */
async function metricsWith(token: string): Promise<string> {
  const answer = await gql<{ adminRuntimeMetrics: { collectedAt: string } }>(
    core.url,
    '{ adminRuntimeMetrics { collectedAt } }',
    { token },
  );
  return answer.data?.adminRuntimeMetrics?.collectedAt
    ? 'allowed'
    : (answer.errors?.[0]?.extensions?.code ?? answer.raw);
}

async function shownToken(page: Page): Promise<string> {
  const value = await page.getByLabel('Token', { exact: true }).inputValue();
  expect(value).toMatch(/^fsa_/);
  return value;
}

async function noSeriousViolations(page: Page, what: string) {
  expect(await seriousAxeViolations(page), what).toEqual([]);
}

test('an admin creates a service account, issues, copies, rotates and revokes its tokens, and deletes it', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: core.url });
  await signIn(page, core.url, ADMIN_EMAIL);
  await page.goto(`${core.url}/admin/service-accounts`);
  const panel = page.getByRole('tabpanel', { name: 'Service accounts' });
  await expect(panel.getByText('No service accounts yet.')).toBeVisible();
  await noSeriousViolations(page, 'empty service accounts tab');

  // A name the server refuses is explained, and nothing is made.
  await panel.getByLabel('Name', { exact: true }).fill('ab');
  await panel.getByLabel('Name', { exact: true }).evaluate((input) => input.removeAttribute('minlength'));
  await panel.getByRole('button', { name: 'Create service account' }).click();
  await expect(panel.getByRole('alert')).toHaveText('Service account name must be 3–100 characters');

  await panel.getByLabel('Name', { exact: true }).fill('Line scripts');
  await panel.getByLabel('Description').fill('Nightly reports from the line PC');
  const scopes = panel.getByRole('group', { name: 'Scopes', exact: true });
  await scopes.getByLabel('Read runtime metrics').check();
  await panel.getByRole('button', { name: 'Create service account' }).click();
  const row = panel.getByRole('row').filter({ hasText: 'Line scripts' });
  await expect(row).toContainText('Nightly reports from the line PC');
  await expect(row.getByLabel('Mint datasource tokens for Line scripts')).toBeChecked();
  await expect(row.getByLabel('Read runtime metrics for Line scripts')).toBeChecked();
  await expect(row.getByLabel('Read datasource diagnostics for Line scripts')).not.toBeChecked();
  await expect(row.getByLabel('Line scripts is active')).toBeChecked();

  // The new account's token panel is open: issue one, shown once with a copy button.
  const tokens = panel.getByRole('region', { name: 'Tokens of Line scripts' });
  await expect(tokens.getByText('No tokens yet.')).toBeVisible();
  await tokens.getByLabel('Token label').fill('reports');
  await tokens.getByRole('button', { name: 'Issue token' }).click();
  const first = await shownToken(page);
  await tokens.getByRole('button', { name: 'Copy token' }).click();
  await expect(tokens.getByRole('status')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);
  await expect(tokens.getByRole('row').filter({ hasText: 'reports' })).toContainText('active');
  await expect(row.getByRole('cell', { name: '1', exact: true })).toBeVisible();
  expect(await metricsWith(first)).toBe('allowed');
  await noSeriousViolations(page, 'service accounts tab with a token shown');

  // Rotating revokes the old token and shows its successor once.
  await tokens.getByRole('button', { name: 'Rotate token reports' }).click();
  await expect.poll(() => shownToken(page)).not.toBe(first);
  const second = await shownToken(page);
  expect(await metricsWith(first)).toBe('UNAUTHENTICATED');
  expect(await metricsWith(second)).toBe('allowed');
  await expect(tokens.getByRole('row').filter({ hasText: 'revoked' })).toHaveCount(1);

  // Scopes and the active state apply to the token at once. The boxes show the server's state, so
  // each changes once the change is stored.
  await row.getByLabel('Read runtime metrics for Line scripts').click();
  await expect(row.getByLabel('Read runtime metrics for Line scripts')).not.toBeChecked();
  expect(await metricsWith(second)).toBe('FORBIDDEN');
  await row.getByLabel('Read runtime metrics for Line scripts').click();
  await expect(row.getByLabel('Read runtime metrics for Line scripts')).toBeChecked();
  expect(await metricsWith(second)).toBe('allowed');
  await row.getByLabel('Line scripts is active').click();
  await expect(row.getByLabel('Line scripts is active')).not.toBeChecked();
  expect(await metricsWith(second)).toBe('UNAUTHENTICATED');
  await row.getByLabel('Line scripts is active').click();
  await expect(row.getByLabel('Line scripts is active')).toBeChecked();
  expect(await metricsWith(second)).toBe('allowed');

  // The last scope cannot go: the server says why and the account keeps it.
  await row.getByLabel('Read runtime metrics for Line scripts').click();
  await expect(row.getByLabel('Read runtime metrics for Line scripts')).not.toBeChecked();
  await row.getByLabel('Mint datasource tokens for Line scripts').click();
  await expect(panel.getByRole('alert')).toHaveText('At least one scope is required');
  await expect(row.getByLabel('Mint datasource tokens for Line scripts')).toBeChecked();

  // Revoked, the token stops working.
  const live = tokens.getByRole('row').filter({ hasText: 'active' });
  await live.getByRole('button', { name: /^Revoke token/ }).click();
  await expect(tokens.getByRole('row').filter({ hasText: 'revoked' })).toHaveCount(2);
  expect(await metricsWith(second)).toBe('UNAUTHENTICATED');

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete Line scripts' }).click();
  await expect(panel.getByText('No service accounts yet.')).toBeVisible();
  await expect(tokens).toHaveCount(0);
});
