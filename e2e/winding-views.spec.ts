// The Design view's pictures in Chromium against a real core: the unwrapped view draws the engine's
// path (its segment count is the engine's own), an edit re-plans without moving the 3D camera,
// and the views pass axe-core.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { buildPreview } from '../engine/gcode/index.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';

// bypassCSP: axe-core is injected into the page as a script.
test.use({ bypassCSP: true });

let core: Core;
test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  await core.stop();
});

async function openInDesign(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${core.lan}/winding`);
  await page.getByRole('tab', { name: 'Design' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open definition' }).click();
  await (await chooser).setFiles(join(REFERENCE_ROOT, name, 'input.wind'));
}

interface Picture {
  /** Share of the canvas's pixels that are not the background. */
  ink: number;
  /** Share that is grey (the bare mandrel). */
  grey: number;
  url: string;
}

/** What a canvas shows now (the last frame the worker committed to it). */
function picture(canvas: Locator): Promise<Picture> {
  return canvas.evaluate((element: HTMLCanvasElement) => {
    const copy = document.createElement('canvas');
    copy.width = element.width;
    copy.height = element.height;
    const ctx = copy.getContext('2d');
    if (!ctx || copy.width === 0) return { ink: 0, grey: 0, url: '' };
    ctx.drawImage(element, 0, 0);
    const { data } = ctx.getImageData(0, 0, copy.width, copy.height);
    let ink = 0;
    let grey = 0;
    for (let i = 0; i < data.length; i += 4) {
      const off =
        Math.abs((data[i] as number) - 0xf7) +
        Math.abs((data[i + 1] as number) - 0xf9) +
        Math.abs((data[i + 2] as number) - 0xfb);
      if ((data[i + 3] as number) > 0 && off > 12) {
        ink++;
        const r = data[i] as number;
        const g = data[i + 1] as number;
        const b = data[i + 2] as number;
        if (Math.max(r, g, b) - Math.min(r, g, b) < 16) grey++;
      }
    }
    const pixels = data.length / 4;
    return { ink: ink / pixels, grey: grey / pixels, url: copy.toDataURL() };
  });
}

/** The picture once two reads a moment apart agree (the worker commits frames off the page's thread). */
async function settled(canvas: Locator): Promise<Picture> {
  let last: Picture | null = null;
  let result: Picture | null = null;
  await expect
    .poll(
      async () => {
        const now = await picture(canvas);
        if (last && now.url === last.url && now.ink > 0) result = now;
        last = now;
        return result !== null;
      },
      { timeout: 30_000, intervals: [250, 500, 1000] },
    )
    .toBe(true);
  return result as unknown as Picture;
}

test('the unwrapped view draws the engine path, one segment for each of the engine’s', async ({ page }) => {
  const name = 'conf_valid_multilayer';
  const preview = buildPreview(
    new Uint8Array(readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode'))),
  );
  await openInDesign(page, name);
  const region = page.getByRole('region', { name: 'Unwrapped view' });
  await expect(region).toBeVisible({ timeout: 30_000 });
  await expect(region).toHaveAttribute('data-segment-count', String(preview.vertexCount - 1));
  await expect(page.getByTestId('unwrapped-figures')).toContainText(
    `${(preview.vertexCount - 1).toLocaleString('en')} segments`,
  );
  // Every segment of the shown layers stroked: the split ones as two pieces.
  const wraps = Number(await region.getAttribute('data-wraps'));
  expect(wraps).toBeGreaterThan(0);
  await expect(region).toHaveAttribute('data-drawn-pieces', String(preview.vertexCount - 1 + wraps));
  const canvas = region.locator('canvas');
  const full = await settled(canvas);
  expect(full.ink).toBeGreaterThan(0.2);

  // The layer scrubber: only the first layer drawn now.
  await region.getByRole('slider', { name: 'Layers up to' }).fill('1');
  const first = preview.layers[0];
  if (!first) throw new Error('no layers');
  await expect(region).toHaveAttribute('data-drawn-pieces', /\d+/);
  await expect
    .poll(async () => Number(await region.getAttribute('data-drawn-pieces')))
    .toBeLessThan(preview.vertexCount - 1 + wraps);

  // Zoom is not clamped: far in and far out both draw.
  await canvas.hover();
  for (let k = 0; k < 12; k++) await page.mouse.wheel(0, -400);
  const close = await settled(canvas);
  expect(close.url).not.toBe(full.url);
  for (let k = 0; k < 30; k++) await page.mouse.wheel(0, 400);
  const far = await settled(canvas);
  expect(far.ink).toBeLessThan(full.ink);
  expect(far.ink).toBeGreaterThan(0);
});

test('an edit re-plans and redraws without moving the 3D camera; Fit moves it', async ({ page }) => {
  await openInDesign(page, 'conf_valid_multilayer');
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).not.toHaveAttribute('data-drawn-vertices', '0', { timeout: 30_000 });
  await expect(view).toHaveAttribute('data-style', 'bands');
  const canvas = view.locator('canvas');
  const start = await settled(canvas);
  for (let k = 0; k < 3; k++) await page.getByRole('button', { name: 'Zoom in', exact: true }).click();
  await expect.poll(async () => (await picture(canvas)).url).not.toBe(start.url);
  const zoomed = await settled(canvas);
  const frames = Number(await view.getAttribute('data-frames'));

  // The feed rate changes the plan (its timing), not the path: the same camera shows the same picture.
  await page.getByRole('spinbutton', { name: 'Feed rate (mm/min)' }).fill('4321');
  await expect.poll(async () => Number(await view.getAttribute('data-frames'))).toBeGreaterThan(frames);
  const replanned = await settled(canvas);
  expect(replanned.url).toBe(zoomed.url);

  await page.getByRole('button', { name: 'Fit', exact: true }).click();
  await expect.poll(async () => (await picture(canvas)).url).not.toBe(zoomed.url);
});

test('the views pass axe-core', async ({ page }) => {
  await openInDesign(page, 'conf_valid_helical');
  await expect(page.getByRole('region', { name: 'Unwrapped view' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('region', { name: '3D view' })).toBeVisible();
  expect(await seriousAxeViolations(page)).toEqual([]);
});

test('on a 1280×800 window the 3D view is in sight at once, and the tow can be drawn as lines', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${core.lan}/winding`);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open file' }).click();
  await (await chooser).setFiles(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'));
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).not.toHaveAttribute('data-drawn-vertices', '0', { timeout: 30_000 });
  const box = await view.locator('canvas').boundingBox();
  expect(box).not.toBeNull();
  expect(box?.y).toBeGreaterThanOrEqual(0);
  expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  const vertices = await view.getAttribute('data-vertex-count');
  await expect(view).toHaveAttribute('data-style', 'bands');
  const bands = await settled(view.locator('canvas'));
  await page.getByRole('checkbox', { name: 'Tow as bands' }).uncheck();
  await expect(view).toHaveAttribute('data-style', 'lines');
  await expect.poll(async () => (await picture(view.locator('canvas'))).url).not.toBe(bands.url);
  const lines = await settled(view.locator('canvas'));
  // The same path either way, drawn whole; tow-wide bands cover the mandrel, lines leave it showing.
  await expect(view).toHaveAttribute('data-drawn-vertices', vertices ?? '');
  expect(bands.grey, JSON.stringify({ bands: bands.grey, lines: lines.grey })).toBeLessThan(lines.grey / 3);
});

test('in the Design tab on a 1280×800 window the 3D view is in sight without scrolling', async ({ page }) => {
  await openInDesign(page, 'multi_layer');
  const view = page.getByRole('region', { name: '3D view' });
  await expect(view).not.toHaveAttribute('data-drawn-vertices', '0', { timeout: 30_000 });
  const box = await view.locator('canvas').boundingBox();
  expect(box).not.toBeNull();
  expect(box?.height ?? 0).toBeGreaterThan(200);
  expect(box?.y).toBeGreaterThanOrEqual(0);
  expect((box?.y ?? 0) + (box?.height ?? 0), JSON.stringify(box)).toBeLessThanOrEqual(800);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
});
