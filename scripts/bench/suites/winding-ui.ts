// The Winding area in Chromium against a real core: loading a 1,000,000-line program, scrubbing
// the timeline, and planning a reference definition in the browser's worker against Node. Figures,
// targets and method: scripts/bench/README.md.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { planChunks } from '../../../engine/plan/index.ts';
import { parseWindDefinition } from '../../../engine/wind/index.ts';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import { startCore } from '../../../server/testing/core.ts';
import type { Bench } from '../support/report.ts';

const LINES = 1_000_000;

/** avbay_single's motion repeated after one header until the program has a million lines. */
function millionLines(): string {
  const text = readFileSync(join(REFERENCE_ROOT, 'avbay_single', 'expected-xab.gcode'), 'utf8');
  const [header, ...body] = text.split('\n');
  if (body.at(-1) === '') body.pop();
  const lines = [header as string];
  while (lines.length < LINES) for (const line of body) if (lines.length < LINES) lines.push(line);
  return `${lines.join('\n')}\n`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] as number;
}

export const bench: Bench = async (report) => {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-bench-ui-'));
  const big = join(dir, 'million.gcode');
  await writeFile(big, millionLines());
  const core = await startCore();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--disable-gpu', '--enable-precise-memory-info'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${core.lan}/winding`);
    await page.evaluate(() => {
      const w = window as unknown as {
        bench: { start: number; longest: number; peak: number; done: number };
      };
      w.bench = { start: 0, longest: 0, peak: 0, done: 0 };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.bench.longest = Math.max(w.bench.longest, entry.duration);
      }).observe({ type: 'longtask' });
      const memory = () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      setInterval(() => {
        w.bench.peak = Math.max(w.bench.peak, memory()?.usedJSHeapSize ?? 0);
      }, 20);
      document.addEventListener('change', () => (w.bench.start = performance.now()), { capture: true });
      new MutationObserver(() => {
        const view = document.querySelector('[data-testid="view3d"]');
        if (!view || w.bench.done) return;
        const drawn = view.getAttribute('data-drawn-vertices');
        if (drawn !== '0' && drawn === view.getAttribute('data-vertex-count'))
          w.bench.done = performance.now();
      }).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file' }).click();
    await (await chooser).setFiles(big);
    await page.waitForFunction(
      () => (window as unknown as { bench: { done: number } }).bench.done > 0,
      null,
      {
        timeout: 120_000,
      },
    );
    const load = await page.evaluate(() => (window as unknown as { bench: Record<string, number> }).bench);
    report(
      'winding-ui: 1M-line G-code, file chosen → whole path drawn',
      's',
      ((load.done ?? 0) - (load.start ?? 0)) / 1000,
      2.0,
    );
    report('winding-ui: 1M-line G-code, peak main-thread JS heap', 'MB', (load.peak ?? 0) / 1e6, 300);
    report(
      'winding-ui: 1M-line G-code, longest main-thread task while loading',
      'ms',
      load.longest ?? 0,
      100,
    );

    // Each step: the slider moves, the page sends the scrub to the worker, the worker draws, and
    // the page hears of the frame (data-frames): the time a user waits to see the new position.
    const frames = await page.evaluate(async () => {
      const slider = document.querySelector('input[aria-label="Timeline"]') as HTMLInputElement;
      const view = document.querySelector('[data-testid="view3d"]') as HTMLElement;
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
      const max = Number(slider.max);
      const times: number[] = [];
      const drawnAfter = (count: number) =>
        new Promise<void>((resolve, reject) => {
          const timeout = setTimeout(() => reject(new Error('no frame drawn within 30 s')), 30_000);
          const observer = new MutationObserver(() => {
            if (Number(view.getAttribute('data-frames')) > count) {
              clearTimeout(timeout);
              observer.disconnect();
              resolve();
            }
          });
          observer.observe(view, { attributes: true, attributeFilter: ['data-frames'] });
        });
      for (let k = 0; k < 200; k++) {
        const before = Number(view.getAttribute('data-frames'));
        const drawn = drawnAfter(before);
        const start = performance.now();
        setValue?.call(slider, String(Math.round((max * k) / 199)));
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await drawn;
        times.push(performance.now() - start);
      }
      return times.sort((a, b) => a - b);
    });
    report('winding-ui: timeline scrub frame time, median of 200 steps', 'ms', percentile(frames, 0.5), null);
    report('winding-ui: timeline scrub frame time, p99 of 200 steps', 'ms', percentile(frames, 0.99), null);

    // Planning: avbay_single in the browser worker (plan + preview + transfer) and in Node (plan only).
    const wind = join(REFERENCE_ROOT, 'avbay_single', 'input.wind');
    const definition = parseWindDefinition(new Uint8Array(readFileSync(wind)), 'input.wind');
    const nodeStart = performance.now();
    const plan = planChunks(definition);
    let step = plan.next();
    while (!step.done) step = plan.next();
    const nodeSeconds = (performance.now() - nodeStart) / 1000;
    const lines = step.value.commands;
    await page.evaluate(() => {
      (window as unknown as { bench: { done: number } }).bench.done = 0;
    });
    const chooser2 = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file' }).click();
    await (await chooser2).setFiles(wind);
    await page.waitForFunction(
      () => (window as unknown as { bench: { done: number } }).bench.done > 0,
      null,
      {
        timeout: 120_000,
      },
    );
    const planLoad = await page.evaluate(
      () => (window as unknown as { bench: Record<string, number> }).bench,
    );
    const browserSeconds = ((planLoad.done ?? 0) - (planLoad.start ?? 0)) / 1000;
    // The worker times its own part (read, plan, preview geometry): the page shows it.
    const workerSeconds = Number(await page.getByTestId('worker-time').getAttribute('data-ms')) / 1000;
    report('winding-ui: planning in Node (avbay_single)', 'lines/s', lines / nodeSeconds, null);
    report(
      'winding-ui: planning + preview geometry in the browser worker (avbay_single)',
      'lines/s',
      lines / workerSeconds,
      lines / nodeSeconds,
    );
    report(
      'winding-ui: avbay_single file chosen → whole path drawn, as lines/s',
      'lines/s',
      lines / browserSeconds,
      null,
    );

    // The frame figure above is when the worker has drawn; the picture reaches the screen once the
    // GPU process (software GL here) has rasterised it. Measured apart, on a fresh page, because
    // reading pixels back is main-thread work that must not count against the loading's long tasks.
    await page.reload();
    await page.evaluate(() => {
      const w = window as unknown as { shown: { start: number; seen: number } };
      w.shown = { start: 0, seen: 0 };
      document.addEventListener('change', () => (w.shown.start = performance.now()), { capture: true });
      const probe = document.createElement('canvas');
      probe.width = 64;
      probe.height = 32;
      const ctx = probe.getContext('2d', { willReadFrequently: true });
      const look = () => {
        const canvas = document.querySelector('[data-testid="view3d"] canvas') as HTMLCanvasElement | null;
        const view = document.querySelector('[data-testid="view3d"]');
        const drawn =
          view?.getAttribute('data-drawn-vertices') !== '0' &&
          view?.getAttribute('data-drawn-vertices') === view?.getAttribute('data-vertex-count');
        if (canvas && ctx && drawn && w.shown.start > 0) {
          ctx.clearRect(0, 0, 64, 32);
          ctx.drawImage(canvas, 0, 0, 64, 32);
          const { data } = ctx.getImageData(0, 0, 64, 32);
          let painted = 0;
          let ink = 0;
          for (let i = 0; i < data.length; i += 4) {
            if ((data[i + 3] as number) === 0) continue;
            painted++;
            const d =
              Math.abs((data[i] as number) - 0xf7) +
              Math.abs((data[i + 1] as number) - 0xf9) +
              Math.abs((data[i + 2] as number) - 0xfb);
            if (d > 12) ink++;
          }
          if (painted === data.length / 4 && ink > 0) {
            w.shown.seen = performance.now();
            return;
          }
        }
        setTimeout(look, 20);
      };
      look();
    });
    const chooser3 = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open file' }).click();
    await (await chooser3).setFiles(big);
    await page.waitForFunction(
      () => (window as unknown as { shown: { seen: number } }).shown.seen > 0,
      null,
      { timeout: 120_000 },
    );
    const shown = await page.evaluate(() => (window as unknown as { shown: Record<string, number> }).shown);
    report(
      'winding-ui: 1M-line G-code, file chosen → path on screen (pixels read back)',
      's',
      ((shown.seen ?? 0) - (shown.start ?? 0)) / 1000,
      2.0,
    );
  } finally {
    await browser.close();
    await core.stop();
    await rm(dir, { recursive: true, force: true });
  }
};
