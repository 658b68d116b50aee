// The machine panel in Chromium against a real core and the fake Marlin on a socat pseudo-terminal
// pair: connect by typed path, stream a reference program, pause, resume, cancel, e-stop.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { prepareProgram } from '../engine/machine/program.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../server/machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../server/machine/testing/pty-pair.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';

const PROGRAM = join(REFERENCE_ROOT, 'sized_simple_cylinder', 'expected-xab.gcode');
const TOTAL = prepareProgram(readFileSync(PROGRAM, 'utf8')).total;
const TOTAL_TEXT = TOTAL.toLocaleString('en');

let core: Core;
let pair: PtyPair;
let marlin: FakeMarlinOnPort;

test.beforeAll(async () => {
  core = await startCore();
  pair = await createPtyPair();
  // A slow controller, so the job is still running while the test pauses and resumes it.
  marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 4 });
});
test.afterAll(async () => {
  await marlin?.close();
  await pair?.dispose();
  expect(await core.stop()).toBe(0);
});

test('connect by typed path, stream a reference program, pause, resume, cancel and e-stop', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${core.lan}/winding`);
  const state = page.getByTestId('machine-state');
  await expect(state).toHaveAttribute('data-state', 'idle');

  await page.getByRole('combobox', { name: 'Serial port' }).fill(pair.near);
  await page.getByRole('combobox', { name: 'Baud rate' }).selectOption('115200');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await expect(state).toContainText('Towpath fake');

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(join(REFERENCE_ROOT, 'sized_simple_cylinder', 'input.wind'));
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();

  await page.getByRole('button', { name: 'Dry run' }).click();
  const log = page.getByRole('log', { name: 'Machine log' });
  await expect(log).toContainText(`${TOTAL_TEXT} commands would be streamed (dry run; no port opened)`);

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'streaming');
  const progress = page.getByRole('progressbar', { name: 'Job progress' });
  await expect.poll(async () => Number(await progress.getAttribute('value'))).toBeGreaterThan(50);
  await expect(page.getByText(`of ${TOTAL_TEXT} lines sent`)).toBeVisible();

  // The streamed line drives the 3D view: part of the path is done, the rest pending.
  const view = page.getByRole('region', { name: '3D view' });
  const total = Number(await view.getAttribute('data-vertex-count'));
  await expect.poll(async () => Number(await view.getAttribute('data-done-vertices'))).toBeGreaterThan(1);
  expect(Number(await view.getAttribute('data-done-vertices'))).toBeLessThan(total);
  await page.screenshot({ path: readmeScreenshot('machine-panel.png'), fullPage: true });

  await page.getByRole('button', { name: 'Pause job' }).click();
  await expect(state).toHaveAttribute('data-state', 'paused');
  const pausedAt = marlin.fake.commands.length;
  await expect(page.getByRole('button', { name: 'Resume job' })).toBeEnabled();
  // Paused at a line boundary: every line the controller got was whole (the fake accepts only
  // well-formed framed lines) and the count stops growing once the lines in flight are answered.
  await expect
    .poll(async () => {
      const before = marlin.fake.commands.length;
      const status = await (await page.request.get(`${core.lan}/api/machine/status`)).json();
      return status.job.sent === before && marlin.fake.commands.length === before;
    })
    .toBe(true);

  await page.getByRole('button', { name: 'Resume job' }).click();
  await expect(state).toHaveAttribute('data-state', 'streaming');
  await expect.poll(() => marlin.fake.commands.length).toBeGreaterThan(pausedAt);

  await page.getByRole('button', { name: 'Cancel job' }).click();
  await expect(state).toHaveAttribute('data-state', 'cancelled');
  const sent = marlin.fake.commands.length;
  expect(sent).toBeGreaterThan(pausedAt);
  expect(sent).toBeLessThan(TOTAL);

  await page.getByRole('button', { name: 'Disconnect' }).click();
  await expect(state).toHaveAttribute('data-state', 'idle');

  // Connected again and streaming, the e-stop on this screen halts it: the controller gets M112
  // and the panel shows the halted state.
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'streaming');
  await page.getByRole('button', { name: 'Emergency stop' }).click();
  await expect.poll(() => marlin.fake.unframed.includes('M112')).toBe(true);
  await expect(state).toHaveAttribute('data-state', 'error');
  await expect(page.getByRole('button', { name: 'Start', exact: true })).toBeDisabled();
});

test.describe('accessibility', () => {
  test.use({ bypassCSP: true });
  test('the machine panel has no serious or critical axe violations, wide and narrow', async ({ page }) => {
    for (const width of [1280, 380]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${core.lan}/winding`);
      await expect(page.getByTestId('machine-state')).toBeVisible();
      const violations = await seriousAxeViolations(page);
      expect(violations, `at ${width}px`).toEqual([]);
    }
  });
});
