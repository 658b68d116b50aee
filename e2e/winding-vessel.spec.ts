// The vessel example in the Winding area, in Chromium against a real core: the plan's analysis is
// drawn as two figures beside the layer table (every layer that lays tow, every point the planner
// reported), the coverage of each layer is listed, the metrics download is the `towpath plan
// --json` body and the saved G-code is byte for byte what `towpath plan` writes; axe-core finds
// nothing serious. The README's vessel screenshot is taken here.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { planToString } from '../engine/plan/index.ts';
import { parseWindText } from '../engine/wind/index.ts';
import { closeMismatches } from '../server/testing/close.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { towpath } from '../server/testing/towpath-cli.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';

const EXAMPLE = join(process.cwd(), 'resources', 'examples', 'vessel.wind');

let core: Core;
test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
});

async function downloaded(page: Page, button: string): Promise<Buffer> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: button }).click();
  return readFile(await (await download).path());
}

test.use({ bypassCSP: true });

test('the vessel example: angle and thickness plots, coverage, metrics and G-code as towpath plan', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const text = await readFile(EXAMPLE, 'utf8');
  const engine = planToString(parseWindText(text, EXAMPLE)).summary;
  const analysis = engine.analysis;
  if (analysis === undefined) throw new Error('the vessel example has no analysis');

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${core.lan}/winding`);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(EXAMPLE);
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible({ timeout: 60_000 });

  // Both figures, named, with their axes labelled and one line per layer that lays tow.
  const laying = analysis.layers.filter((layer) => layer.thickness_mm.some((t) => t > 0));
  for (const [name, yLabel] of [
    ['Fibre angle along the part', 'Fibre angle from the axis (°)'],
    ['Thickness along the part', 'Thickness (mm)'],
  ] as const) {
    const figure = page.getByRole('figure', { name });
    await expect(figure).toBeVisible();
    await expect(figure).toHaveAttribute('data-points', String(analysis.z_mm.length));
    await expect(figure.locator('svg text', { hasText: 'Position along the axis z (mm)' })).toHaveCount(1);
    await expect(figure.locator('svg text', { hasText: yLabel })).toHaveCount(1);
    const lines = figure.locator('path[data-layer]');
    await expect(lines).toHaveCount(laying.length);
    expect(await lines.evaluateAll((paths) => paths.map((p) => p.getAttribute('data-layer')))).toEqual(
      laying.map((layer) => String(layer.index)),
    );
    // Each line is drawn through the reported points: as many vertices as the layer has values.
    for (const layer of laying) {
      const d = (await figure.locator(`path[data-layer="${layer.index}"]`).getAttribute('d')) ?? '';
      const values = name.startsWith('Fibre') ? layer.angle_deg : layer.cumulative_thickness_mm;
      expect(d.match(/[ML]/g)?.length).toBe(values.filter((v) => v !== null).length);
    }
  }

  // Coverage of the geodesic layer as the planner closed it.
  const geodesic = analysis.layers.find((layer) => layer.wind_type === 'geodesic');
  const coverage = page.getByRole('table', { name: 'Coverage' });
  await expect(coverage.getByRole('row', { name: /^2 \(geodesic\)/ })).toContainText(
    String(geodesic?.coverage?.slots),
  );

  // The downloads: the CLI's --json body (without `output`) and the CLI's G-code, byte for byte.
  const dir = await mkdtemp(join(tmpdir(), 'towpath-vessel-e2e-'));
  const output = join(dir, 'vessel.gcode');
  const planned = await towpath('plan', EXAMPLE, '-o', output, '--json');
  expect(planned.code).toBe(0);
  const { output: _where, ...body } = JSON.parse(planned.stdout);
  // Numbers within 1e-9 relative (spec §8): Chromium's and Node's Math.asin may differ in the
  // last bit, which the analysis's angles show; the G-code's six decimals do not.
  const metrics = await downloaded(page, 'Download metrics');
  expect(closeMismatches(JSON.parse(metrics.toString('utf8')), body)).toEqual([]);
  const gcode = await downloaded(page, 'Save G-code');
  expect(gcode.equals(await readFile(output))).toBe(true);

  // The 3D view drew the path; the part and its plots go in the README.
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).not.toHaveAttribute('data-drawn-vertices', '0');
  expect(await seriousAxeViolations(page)).toEqual([]);
  // The README's picture: the part in 3D and the plan with its plots, whichever the page puts first.
  // Boxes are measured from the viewport and a full-page clip from the page's top: scroll there first.
  await page.evaluate(() => window.scrollTo(0, 0));
  const plan = await page.locator('section.definition').boundingBox();
  const part = await view.boundingBox();
  if (plan === null || part === null) throw new Error('nothing to photograph');
  const top = Math.min(plan.y, part.y);
  const bottom = Math.max(plan.y + plan.height, part.y + part.height);
  const left = Math.min(plan.x, part.x);
  const right = Math.max(plan.x + plan.width, part.x + part.width);
  await page.screenshot({
    path: readmeScreenshot('winding-vessel.png'),
    fullPage: true,
    clip: { x: left, y: top, width: right - left, height: bottom - top },
  });
});
