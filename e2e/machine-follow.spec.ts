// The panel follows the running job, not the open file, in Chromium against a real core and the
// fake Marlin on socat pseudo-terminal pairs: a job keeps its name and place when another file is
// opened, a job started the CLI's way (the machine door's /stream) is shown the same way, the feed
// override reaches the controller as its exact line, and after an e-stop "Reset controller"
// brings the controller back with M999.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import type { MachineStatus } from '../engine/machine/types.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { FakeControllers } from './support/fake-controllers.ts';

const JOB = join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode');
// Another program under a name of its own, to tell the open file from the job.
const SCRATCH = mkdtempSync(join(tmpdir(), 'towpath-follow-'));
const OTHER = join(SCRATCH, 'hoop.gcode');
copyFileSync(join(REFERENCE_ROOT, 'conf_valid_hoop', 'expected-xab.gcode'), OTHER);

let core: Core;
const controllers = new FakeControllers();
// Controllers that take M999 after a kill, so "Reset controller" can bring one back.
const controller = (ackDelayMs: number) => controllers.add({ ackDelayMs, takesM999: true });

async function connect(page: Page, port: string) {
  await page.getByRole('combobox', { name: 'Serial port' }).fill(port);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('machine-state')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
}

async function open(page: Page, path: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(path);
}

test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  await controllers.dispose();
  expect(await core.stop()).toBe(0);
  rmSync(SCRATCH, { recursive: true, force: true });
});

// axe-core goes into the page as a script tag, which the app's CSP would refuse.
test.use({ bypassCSP: true });

test('the panel names the running job while another file is open; feed override; e-stop and reset', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 1200 });
  await page.goto(`${core.lan}/winding`);
  const state = page.getByTestId('machine-state');
  await expect(state).toHaveAttribute('data-state', 'idle');
  const { pair, marlin } = await controller(6);
  await connect(page, pair.near);

  await open(page, JOB);
  await expect(page.getByRole('region', { name: '3D view' })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'streaming');
  const running = page.getByTestId('running-job').locator('strong');
  await expect(running).toHaveText('expected-xab.gcode');
  await expect.poll(() => marlin.fake.commands.length, { timeout: 30_000 }).toBeGreaterThan(60);
  // Where the job is, from its own program's layer comments.
  await expect(page.getByTestId('job-place')).toHaveText(/^Layer 1 of \d+ \(\w+\)/);

  // Another file opened mid-job: the panel still names the job and says where it is.
  await open(page, OTHER);
  await expect(page.locator('.machine__job strong').filter({ hasText: 'hoop.gcode' })).toBeVisible({
    timeout: 30_000,
  });
  const status = (await (await page.request.get(`${core.lan}/api/machine/status`)).json()) as MachineStatus;
  expect(status.program?.name).toBe('expected-xab.gcode');
  expect(status.program?.sha256).toMatch(/^[0-9a-f]{64}$/);
  await expect(running).toHaveText('expected-xab.gcode');
  await expect(page.getByTestId('job-place')).toBeVisible();
  // The Viewer keeps following the job, from the job's own program; the open file is a click away.
  await expect(page.getByRole('heading', { name: 'Running job: expected-xab.gcode' })).toBeVisible({
    timeout: 30_000,
  });
  await page.getByRole('button', { name: 'Show the open file' }).click();
  await expect(page.getByTestId('job-view')).toHaveCount(0);
  await expect(page.getByTestId('view3d')).toBeVisible();
  await page.getByRole('button', { name: 'Show the running job' }).click();
  await expect(page.getByTestId('job-view').getByTestId('view3d')).toBeVisible();

  // Feed override by keyboard: the exact line reaches the controller between the job's lines.
  const slider = page.getByRole('slider', { name: 'Feed override' });
  await expect(slider).toBeEnabled();
  await slider.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('feed-override')).toHaveText('95 %');
  await expect.poll(() => marlin.fake.commands.includes('M220 S95')).toBe(true);
  expect(await seriousAxeViolations(page)).toEqual([]);

  // E-stop, then the way back without a new port: Reset controller sends M999 to the same one.
  await expect(page.getByRole('button', { name: 'Reset controller' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Emergency stop' }).click();
  await expect(state).toHaveAttribute('data-state', 'error');
  // The stopped job is still the one named.
  await expect(running).toHaveText('expected-xab.gcode');
  await page.getByRole('button', { name: 'Reset controller' }).click();
  await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  expect(marlin.fake.unframed).toContain('M999');
  await expect(page.getByRole('button', { name: 'Reset controller' })).toHaveCount(0);
  expect(await seriousAxeViolations(page)).toEqual([]);
});

test('a job started the CLI way is shown by its name and progress', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${core.lan}/winding`);
  // The first test left its controller connected; the CLI's stream opens a port of its own.
  expect((await page.request.post(`${core.lan}/api/machine/disconnect`, { data: {} })).status()).toBe(200);
  const { pair } = await controller(4);
  // What `towpath stream` sends to a running workstation: the program and its name, to /stream.
  const text = readFileSync(JOB, 'utf8');
  const streamed = page.request.post(`${core.lan}/api/machine/stream?name=from-cli.gcode`, {
    data: { gcode: text, port: pair.near },
    timeout: 120_000,
  });
  const state = page.getByTestId('machine-state');
  await expect(state).toHaveAttribute('data-state', 'streaming', { timeout: 20_000 });
  const running = page.getByTestId('running-job').locator('strong');
  await expect(running).toHaveText('from-cli.gcode');
  await expect(page.getByTestId('job-place')).toHaveText(/^Layer \d+ of \d+/);
  await expect(page.getByText('none open (open a definition or G-code file first)')).toBeVisible();
  // With no file open, the Viewer draws the job's own program and its progress in 3D.
  await expect(page.getByRole('heading', { name: 'Running job: from-cli.gcode' })).toBeVisible({
    timeout: 30_000,
  });
  const view = page.getByTestId('job-view').getByTestId('view3d');
  const vertices = async (name: string) => Number(await view.getAttribute(name));
  await expect.poll(() => vertices('data-drawn-vertices'), { timeout: 30_000 }).toBeGreaterThan(0);
  // Part done, part to do: the view starts at the machine's place, never with the whole path done.
  const drawn = await vertices('data-drawn-vertices');
  await expect.poll(() => vertices('data-done-vertices'), { timeout: 30_000 }).toBeGreaterThan(0);
  expect(await vertices('data-done-vertices')).toBeLessThan(drawn);
  const doneBefore = await vertices('data-done-vertices');
  await expect.poll(() => vertices('data-done-vertices'), { timeout: 30_000 }).toBeGreaterThan(doneBefore);
  expect(await vertices('data-done-vertices')).toBeLessThan(await vertices('data-drawn-vertices'));
  expect(await seriousAxeViolations(page)).toEqual([]);
  // Cancelled from the panel like any job; the CLI's request ends with its outcome.
  await page.getByRole('button', { name: 'Cancel job' }).click();
  const answer = await streamed;
  expect(answer.status()).toBe(200);
  expect(await answer.json()).toMatchObject({ status: 'cancelled' });
  await expect(running).toHaveText('from-cli.gcode');
});
