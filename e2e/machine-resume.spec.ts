// Resume from a circuit in Chromium against a real core and the fake Marlin on socat
// pseudo-terminal pairs: a job is e-stopped mid-way, the controller comes back, "Resume from…"
// offers the last circuit that certainly completed, and the resumed job winds the rest — every
// circuit of the program wound once, by one job or the other.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { JobList } from '../engine/machine/contract.ts';
import { prepareProgram } from '../engine/machine/program.ts';
import { DEFAULT_QUEUE_DEPTH, suggestCheckpoint } from '../engine/machine/resume.ts';
import type { MachineStatus } from '../engine/machine/types.ts';
import { describeCheckpoint, readCheckpoints } from '../engine/plan/checkpoints.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { axeViolations } from './support/axe.ts';
import { FakeControllers } from './support/fake-controllers.ts';

const PROGRAM = join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode');
const TEXT = readFileSync(PROGRAM, 'utf8');
const COMMANDS = prepareProgram(TEXT).commands.map((c) => c.command);
const { checkpoints: CHECKPOINTS } = readCheckpoints(TEXT);

let core: Core;
const controllers = new FakeControllers();
const controller = (ackDelayMs: number) => controllers.add({ ackDelayMs });

test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  await controllers.dispose();
  expect(await core.stop()).toBe(0);
});

// axe-core goes into the page as a script tag, which the app's CSP would refuse.
test.use({ bypassCSP: true });

test('e-stop mid-job, then resume from the suggested circuit: every circuit wound once', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 1200 });
  await page.goto(`${core.lan}/winding`);
  const state = page.getByTestId('machine-state');
  await expect(state).toHaveAttribute('data-state', 'idle');

  // A slow controller, so the job is still running when the e-stop comes.
  const first = await controller(4);
  await page.getByRole('combobox', { name: 'Serial port' }).fill(first.pair.near);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(PROGRAM);
  await expect(page.getByRole('region', { name: '3D view' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Resume from…' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'streaming');
  await expect.poll(() => first.marlin.fake.commands.length, { timeout: 30_000 }).toBeGreaterThan(400);
  await page.getByRole('button', { name: 'Emergency stop' }).click();
  await expect(state).toHaveAttribute('data-state', 'error');
  const stopped = (await (await page.request.get(`${core.lan}/api/machine/status`)).json()) as MachineStatus;
  const acknowledged = stopped.job?.acknowledged ?? 0;
  expect(acknowledged).toBeGreaterThan(400);
  const suggested = suggestCheckpoint(CHECKPOINTS, acknowledged, DEFAULT_QUEUE_DEPTH);
  if (!suggested) throw new Error('a checkpoint lies before the e-stop');

  // The form: the suggested circuit chosen, earlier ones offered, none the job may not have reached.
  await page.getByRole('button', { name: 'Resume from…' }).click();
  const choice = page.getByRole('combobox', { name: 'Resume checkpoint' });
  await expect(choice).toHaveValue(String(suggested.index));
  const offered = await choice.locator('option').allTextContents();
  expect(offered).toHaveLength(CHECKPOINTS.filter((c) => c.command <= acknowledged).length);
  expect(offered[suggested.index - 1]).toBe(
    `${suggested.index}. ${describeCheckpoint(suggested)} (line ${suggested.line}) — suggested`,
  );
  const attached = page.getByRole('checkbox', { name: 'Tow still attached' });
  await expect(attached).toBeChecked();
  // The 3D view shows what is wound before the checkpoint and what the resumed job will wind.
  const view = page.getByRole('region', { name: '3D view' });
  const vertices = Number(await view.getAttribute('data-vertex-count'));
  const done = async () => Number(await view.getAttribute('data-done-vertices'));
  await expect.poll(done).toBeLessThan(vertices);
  expect(await done()).toBeGreaterThan(0);
  expect(await axeViolations(page)).toEqual([]);
  await expect(page.getByRole('button', { name: 'Start resumed job' })).toBeDisabled();

  // The controller comes back (a reset board on a fresh port; the halted one's port is closed)
  // and the job is taken up again.
  const second = await controller(0);
  await page.getByRole('combobox', { name: 'Serial port' }).fill(second.pair.near);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Start resumed job' }).click();
  await expect(state).toHaveAttribute('data-state', 'completed', { timeout: 120_000 });

  // The first job certainly wound everything before the checkpoint; the second got the lead-in and
  // then everything from it.
  const from = suggested.command;
  const received = second.marlin.fake.commands;
  const leadIn = received.slice(0, received.length - (COMMANDS.length - from));
  expect(leadIn).toHaveLength(6);
  expect(leadIn[0]).toMatch(/^G0 F/);
  expect(received.slice(leadIn.length)).toEqual(COMMANDS.slice(from));
  expect(first.marlin.fake.commands.slice(0, from)).toEqual(COMMANDS.slice(0, from));
  // Each circuit, [its start, the next checkpoint), is wound by exactly one of the two jobs.
  const bounds = [...CHECKPOINTS.map((c) => c.command), COMMANDS.length];
  for (const [k, c] of CHECKPOINTS.entries()) {
    if (c.kind !== 'circuit') continue;
    const end = bounds[k + 1] as number;
    const byFirst = end <= from && end <= acknowledged - DEFAULT_QUEUE_DEPTH;
    const bySecond = c.command >= from;
    expect(Number(byFirst) + Number(bySecond), describeCheckpoint(c)).toBe(1);
  }
  await expect(page.getByRole('button', { name: 'Resume from…' })).toHaveCount(0);
  // The history has the resumed job as a new job naming the e-stopped one.
  const { jobs } = (await (await page.request.get(`${core.lan}/api/machine/jobs?limit=2`)).json()) as JobList;
  expect(jobs.map((job) => job.outcome)).toEqual(['completed', 'e-stopped']);
  expect(jobs[0]?.continues).toBe(jobs[1]?.id);
});
