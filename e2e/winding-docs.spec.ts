// The winding door's interactive documentation in a real Chromium: a plan run from the page.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { type Running, startNode } from '../server/testing/process.ts';

let core: Running;
let winding: string;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'towpath-e2e-docs-'));
  core = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
  });
  const [, url] = await core.waitFor(/winding door (http:\/\/[^)]+)\)/);
  winding = url as string;
});

test.afterAll(async () => {
  core.child.kill('SIGTERM');
  await core.finished;
  await rm(dataDir, { recursive: true, force: true });
});

test('the docs page plans the example file', async ({ page }, testInfo) => {
  const output = join(dataDir, 'examples', 'simple-cylinder.gcode');
  const before = (await stat(output)).mtimeMs;

  await page.goto(`${winding}/docs`);
  await expect(page.getByRole('heading', { name: /Towpath winding service/ })).toBeVisible();
  const plan = page.locator('#operations-default-plan_from_file');
  await plan.locator('.opblock-summary').click();
  await expect(plan.locator('textarea.body-param__text')).toContainText(
    join(dataDir, 'examples', 'simple-cylinder.wind'),
  );
  await plan.getByRole('button', { name: 'Execute' }).click();

  const response = plan.locator('.live-responses-table .response').first();
  await expect(response.locator('.response-col_status')).toHaveText('200');
  await expect(response.locator('.response-col_description')).toContainText('"commands": 1014');
  await expect(response.locator('.response-col_description')).toContainText(`"output": "${output}"`);
  expect((await stat(output)).mtimeMs).toBeGreaterThanOrEqual(before);
  await testInfo.attach('docs-plan', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });
});
