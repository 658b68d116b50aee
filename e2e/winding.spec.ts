// The Winding area in Chromium against a real core: every reference case opens, plans and
// downloads exactly what `towpath plan` writes; invalid cases show the exact error; the 3D view
// draws the engine's vertices; the page passes axe-core.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { buildPreview } from '../engine/gcode/index.ts';
import { planChunks } from '../engine/plan/index.ts';
import { parseWindDefinition } from '../engine/wind/index.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';

const cases = readdirSync(REFERENCE_ROOT).filter((name) => !name.includes('.'));
const valid = cases.filter((name) => readdirSync(join(REFERENCE_ROOT, name)).includes('expected-xab.gcode'));
const invalid = cases.filter((name) => name.startsWith('conf_invalid_'));

let core: Core;
test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
});

async function openFile(page: Page, path: string): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(path);
}

async function downloaded(page: Page, button: string): Promise<Buffer> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: button }).click();
  const path = await (await download).path();
  return readFileSync(path);
}

function expectedOf(name: string) {
  return JSON.parse(readFileSync(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8'));
}

test('every valid reference definition plans to the reference G-code and metrics', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(`${core.lan}/winding`);
  for (const name of valid) {
    await test.step(name, async () => {
      const expected = expectedOf(name);
      await openFile(page, join(REFERENCE_ROOT, name, 'input.wind'));
      const table = page.getByRole('table', { name: 'Layers' });
      await expect(table).toBeVisible({ timeout: 60_000 });
      await expect(page.getByRole('heading', { level: 2, name: 'input.wind' })).toBeVisible();
      const rows = await table
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-layer')));
      expect(rows.map((row) => JSON.parse(row ?? 'null'))).toEqual(expected.plan.layers);
      await expect(table.locator('tbody tr')).toHaveCount(expected.plan.layers.length);

      const metrics = await downloaded(page, 'Download metrics');
      expect(metrics.toString('utf8')).toBe(`${JSON.stringify(expected.plan)}\n`);
      const gcode = await downloaded(page, 'Save G-code');
      expect(gcode.equals(readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode')))).toBe(true);
      // In a browser there is no native dialog: the save is a download, and the page says so.
      await expect(page.getByTestId('save-note')).toHaveText('Downloaded input.gcode');
    });
  }
});

test('the xyz axis format re-plans to the xyz reference', async ({ page }) => {
  await page.goto(`${core.lan}/winding`);
  await openFile(page, join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'));
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();
  await page.getByLabel('Axis format').selectOption('xyz');
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();
  const metrics = JSON.parse((await downloaded(page, 'Download metrics')).toString('utf8'));
  expect(metrics.axisFormat).toBe('xyz');
  const gcode = await downloaded(page, 'Save G-code');
  expect(gcode.equals(readFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'expected-xyz.gcode')))).toBe(
    true,
  );
});

/** What `towpath plan --verbose` writes for a definition: the same engine, run here in Node. */
function verbosePlan(path: string): Buffer {
  const definition = parseWindDefinition(new Uint8Array(readFileSync(path)), 'input.wind');
  const plan = planChunks(definition, { axisFormat: 'xab', verbose: true });
  const chunks: Buffer[] = [];
  // The planner reuses its chunk buffer: each chunk is copied as it comes.
  for (let step = plan.next(); !step.done; step = plan.next()) chunks.push(Buffer.from(step.value));
  return Buffer.concat(chunks);
}

test('verbose comments re-plan to what `towpath plan --verbose` writes', async ({ page }) => {
  const input = join(REFERENCE_ROOT, 'multi_layer', 'input.wind');
  await page.goto(`${core.lan}/winding`);
  await openFile(page, input);
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();
  await page.getByLabel('Verbose comments').check();
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();
  const gcode = await downloaded(page, 'Save G-code');
  expect(gcode.toString('utf8')).toContain('; Verbose output enabled');
  expect(gcode.equals(verbosePlan(input))).toBe(true);
});

test('a file dropped on the page opens, and the recent list opens it again', async ({ page }) => {
  await page.goto(`${core.lan}/winding`);
  const wind = readFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), 'utf8');
  const dataTransfer = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.wind'));
    return transfer;
  }, wind);
  await page.locator('section.winding').dispatchEvent('drop', { dataTransfer });
  await expect(page.getByRole('heading', { level: 2, name: 'dropped.wind' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();

  await openFile(page, join(REFERENCE_ROOT, 'multi_layer', 'input.wind'));
  await expect(page.getByRole('heading', { level: 2, name: 'input.wind' })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Recent files' })
    .getByRole('button', { name: /^dropped\.wind/ })
    .click();
  await expect(page.getByRole('heading', { level: 2, name: 'dropped.wind' })).toBeVisible();
  const metrics = JSON.parse((await downloaded(page, 'Download metrics')).toString('utf8'));
  expect(metrics).toEqual(expectedOf('simple_cylinder').plan);
});

test('invalid definitions show the exact error', async ({ page }) => {
  await page.goto(`${core.lan}/winding`);
  for (const name of invalid) {
    await test.step(name, async () => {
      await openFile(page, join(REFERENCE_ROOT, name, 'input.wind'));
      const detail = expectedOf(name).error.detail.replaceAll('{path}', 'input.wind');
      await expect(page.getByTestId('program-error')).toHaveText(detail);
      await expect(page.getByRole('table', { name: 'Layers' })).toHaveCount(0);
    });
  }
});

test('a G-code file shows the simulator figures', async ({ page }) => {
  await page.goto(`${core.lan}/winding`);
  await openFile(page, join(REFERENCE_ROOT, 'conf_valid_multilayer', 'expected-xab.gcode'));
  const figures = page.getByTestId('simulation');
  await expect(figures).toBeVisible();
  const summary = JSON.parse((await figures.getAttribute('data-summary')) ?? 'null');
  const expected = expectedOf('conf_valid_multilayer').simulate;
  for (const key of Object.keys(expected)) expect(summary[key]).toBeCloseTo(expected[key], 6);
});

interface Picture {
  /** Shares of the canvas's pixels: not background, in the pending colour, strongly coloured (a layer's colour: done). */
  ink: number;
  pending: number;
  done: number;
  /** Share of pixels not painted at all (no frame shown yet). */
  unpainted: number;
  url: string;
}

/** What the canvas shows now (the last frame the worker committed to it). */
async function samplePixels(page: Page): Promise<Picture> {
  return page
    .getByRole('region', { name: '3D view' })
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext('2d');
      if (!ctx) return { ink: 0, pending: 0, done: 0, unpainted: 1, url: '' };
      ctx.drawImage(canvas, 0, 0);
      const { data } = ctx.getImageData(0, 0, copy.width, copy.height);
      let ink = 0;
      let pending = 0;
      let done = 0;
      let unpainted = 0;
      const pixels = data.length / 4;
      for (let i = 0; i < data.length; i += 4) {
        const r = data[i] as number;
        const g = data[i + 1] as number;
        const b = data[i + 2] as number;
        if ((data[i + 3] as number) === 0) unpainted++;
        else if (Math.abs(r - 0xf7) + Math.abs(g - 0xf9) + Math.abs(b - 0xfb) > 12) ink++;
        if (Math.abs(r - 0x6f) + Math.abs(g - 0x5f) + Math.abs(b - 0x8f) < 24) pending++;
        if (Math.max(r, g, b) - Math.min(r, g, b) > 100) done++;
      }
      return {
        ink: ink / pixels,
        pending: pending / pixels,
        done: done / pixels,
        unpainted: unpainted / pixels,
        url: copy.toDataURL(),
      };
    });
}

/**
 * The picture once it has settled: the worker draws off the page's thread and the canvas shows a
 * frame a little after the worker reports it, so this waits until two reads agree and every pixel
 * is painted.
 */
async function settledPicture(page: Page): Promise<Picture> {
  let last: Picture | null = null;
  let settled: Picture | null = null;
  await expect
    .poll(
      async () => {
        const now = await samplePixels(page);
        if (last && now.url === last.url && now.unpainted === 0) settled = now;
        last = now;
        return settled !== null;
      },
      { timeout: 20_000, intervals: [100, 200, 400] },
    )
    .toBe(true);
  return settled as unknown as Picture;
}

test('the 3D view draws the engine geometry, and scrubbing to the middle draws half as done', async ({
  page,
}) => {
  const name = 'multi_layer';
  const preview = buildPreview(
    new Uint8Array(readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode'))),
  );
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${core.lan}/winding`);
  await openFile(page, join(REFERENCE_ROOT, name, 'input.wind'));
  const view = page.getByRole('region', { name: '3D view' });
  // Drawn by the preview worker on the canvas the page handed over, not on the page's thread.
  await expect(view).toHaveAttribute('data-drawn-by', 'worker');
  await expect(view).toHaveAttribute('data-drawn-vertices', String(preview.vertexCount));
  await expect(view).toHaveAttribute('data-done-vertices', String(preview.vertexCount));
  await expect(view).toHaveAttribute('data-path-uploads', '3');
  const full = await settledPicture(page);
  expect(full.ink, JSON.stringify(full)).toBeGreaterThan(0.01);
  expect(full.done, JSON.stringify(full)).toBeGreaterThan(0.002);
  expect(full.pending, JSON.stringify(full)).toBeLessThan(0.0005);

  await view.screenshot({ path: readmeScreenshot('winding-3d-view.png') });

  const middle = Math.floor(preview.commandCount / 2);
  const slider = page.getByRole('slider', { name: 'Timeline' });
  await slider.fill(String(middle));
  let lastAtMiddle = 0;
  for (let k = 0; k < preview.vertexCount; k++)
    if ((preview.commandIndex[k] as number) <= middle) lastAtMiddle = k;
  await expect(view).toHaveAttribute('data-done-vertices', String(lastAtMiddle + 1));
  const ratio = (lastAtMiddle + 1) / preview.vertexCount;
  expect(ratio).toBeGreaterThan(0.3);
  expect(ratio).toBeLessThan(0.7);
  // Still the whole path drawn: done and pending differ only in colour.
  await expect(view).toHaveAttribute('data-drawn-vertices', String(preview.vertexCount));
  // Scrubbing changed a uniform only: the three vertex buffers went to the GPU once, at the start.
  await expect(view).toHaveAttribute('data-path-uploads', '3');
  // The readout follows the scrub position.
  await expect(page.getByTestId('readout')).toContainText('G0');

  // Keyboard: the slider moves with the arrow keys, play starts and pauses.
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  await expect(slider).toHaveValue(String(middle + 1));
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeVisible();

  // Hiding every layer leaves nothing drawn but the mandrel.
  for (const box of await page.getByRole('group', { name: 'Layers shown' }).getByRole('checkbox').all()) {
    await box.uncheck();
  }
  await expect.poll(async () => (await samplePixels(page)).done).toBeLessThan(0.0005);
});

test('wheel, drag and arrow keys on the canvas reach the scene drawn in the worker', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${core.lan}/winding`);
  await openFile(page, join(REFERENCE_ROOT, 'multi_layer', 'input.wind'));
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).not.toHaveAttribute('data-drawn-vertices', '0');
  const canvas = view.locator('canvas');
  /** Does `act`, then waits until the canvas shows a settled picture other than `before`. */
  const after = async (before: Picture, act: () => Promise<void>) => {
    await act();
    await expect.poll(async () => (await samplePixels(page)).url, { timeout: 20_000 }).not.toBe(before.url);
    return settledPicture(page);
  };
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas box');
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };

  const start = await settledPicture(page);
  await page.mouse.move(centre.x, centre.y);
  const zoomed = await after(start, () => page.mouse.wheel(0, -600));
  // Closer: the part covers more of the view.
  expect(zoomed.ink).toBeGreaterThan(start.ink);

  const orbited = await after(zoomed, async () => {
    await page.mouse.down();
    await page.mouse.move(centre.x + 120, centre.y + 40, { steps: 4 });
    await page.mouse.up();
  });
  await canvas.focus();
  const panned = await after(orbited, () => page.keyboard.press('ArrowLeft'));

  // The isometric view and Fit bring the whole part back as at the start.
  const iso = await after(panned, () => page.getByRole('button', { name: 'Isometric view' }).click());
  expect(Math.abs(iso.ink - start.ink)).toBeLessThan(start.ink * 0.2);
});

test('on screen, the middle of a hoop layer is half done and half pending', async ({ page }) => {
  const name = 'sized_simple_cylinder';
  const preview = buildPreview(
    new Uint8Array(readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode'))),
  );
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${core.lan}/winding`);
  await openFile(page, join(REFERENCE_ROOT, name, 'input.wind'));
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).toHaveAttribute('data-drawn-vertices', String(preview.vertexCount));
  await page.getByRole('button', { name: 'Side view' }).click();
  await page.getByRole('slider', { name: 'Timeline' }).fill(String(Math.floor(preview.commandCount / 2)));
  // About as much of the path in the pending colour as in the layer's colour.
  await expect
    .poll(async () => {
      const { pending, done } = await samplePixels(page);
      return pending / (pending + done);
    })
    .toBeGreaterThan(0.2);
  const half = await samplePixels(page);
  expect(half.pending / (half.pending + half.done), JSON.stringify(half)).toBeLessThan(0.8);
});

test.describe('accessibility', () => {
  test.use({ bypassCSP: true });
  test('the winding screen with a plan open has no serious or critical axe violations', async ({ page }) => {
    for (const width of [1280, 380]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${core.lan}/winding`);
      await openFile(page, join(REFERENCE_ROOT, 'conf_valid_multilayer', 'input.wind'));
      await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible();
      const violations = await seriousAxeViolations(page);
      expect(violations, `at ${width}px`).toEqual([]);
    }
  });
});
