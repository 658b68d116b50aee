// The Design view's Source tab in Chromium against a real core, under the renderer's own
// Content-Security-Policy: the editor is styled (its styles must not be refused), reached and
// edited with the keyboard alone, marks the engine's problem at the token with the engine's
// message, undoes through the Design view's history, and passes axe-core.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';

const EXAMPLE = readFileSync(join(process.cwd(), 'resources', 'examples', 'simple-cylinder.wind'), 'utf8');
/** 0-based line of the mandrel diameter in the example. */
const DIAMETER_LINE = EXAMPLE.split('\n').findIndex((line) => line.includes('"diameter": 70.0,'));

let core: Core;
test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
});

async function openSource(page: Page): Promise<void> {
  await page.goto(`${core.lan}/winding`);
  await page.getByRole('tab', { name: 'Design' }).click();
  await page.getByLabel('Start from').selectOption({ label: 'Example: hoop-only cylinder' });
  await page.getByRole('button', { name: 'New definition' }).click();
  await page.getByRole('tab', { name: 'Source' }).click();
  await expect(page.getByRole('textbox', { name: 'Definition source' })).toContainText('"defaultFeedRate"');
}

test('the Source tab works by keyboard under the page CSP', async ({ page }) => {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await openSource(page);
  const source = page.getByRole('textbox', { name: 'Definition source' });
  const status = page.getByRole('region', { name: 'Source problems' }).getByRole('status');
  await expect(status).toHaveText('No problems');
  // CodeMirror's own layout rules are in place (a refused style sheet leaves the editor a block).
  await expect(page.locator('.cm-editor')).toHaveCSS('display', 'flex');

  // From the Source tab, Tab reaches the editor; select the diameter's value and type over it.
  await page.getByRole('tab', { name: 'Source' }).focus();
  await page.keyboard.press('Tab');
  await expect(source).toBeFocused();
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < DIAMETER_LINE; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  for (let i = 0; i < '70.0'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.type('-5');

  await expect(status).toHaveText('1 problem');
  await expect(page.locator('.cm-lintRange-error')).toHaveText('-5');
  const column = EXAMPLE.split('\n')[DIAMETER_LINE]?.indexOf('70.0') ?? -1;
  const problem = page.getByRole('button', { name: `Line ${DIAMETER_LINE + 1}, column ${column + 1}` });
  await expect(problem).toHaveAccessibleDescription(
    'mandrelParameters.diameter Input should be greater than 0 [type=greater_than]',
  );

  // The problem's button selects the token and returns to the editor; typing replaces it.
  await problem.focus();
  await page.keyboard.press('Enter');
  await expect(source).toBeFocused();
  await page.keyboard.type('80');
  await expect(status).toHaveText('No problems');
  await expect(source).toContainText('"diameter": 80,');

  // Undo and redo are the Design view's, for source edits as for form edits.
  await page.keyboard.press('Control+z');
  await expect(source).not.toContainText('"diameter": 80,');
  await page.keyboard.press('Control+y');
  await expect(source).toContainText('"diameter": 80,');
  expect(refused).toEqual([]);
});

test.describe('axe-core', () => {
  // axe is injected as a script, so this context bypasses the page CSP.
  test.use({ bypassCSP: true });

  test('the Source tab, with a problem listed, has no serious or critical violations', async ({ page }) => {
    await openSource(page);
    await page.getByRole('textbox', { name: 'Definition source' }).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('x');
    await expect(page.getByRole('region', { name: 'Source problems' }).getByRole('status')).toHaveText(
      '1 problem',
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});
