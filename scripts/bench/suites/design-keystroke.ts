// The design studio in Chromium against a real core: a keystroke in a field → the 3D and unwrapped
// views redrawn with the new plan, for the largest reference definition and a million-line one,
// and the longest main-thread task meanwhile. Figures, targets and method: scripts/bench/README.md.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from '@playwright/test';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import { startCore } from '../../../server/testing/core.ts';
import { benchDefinition } from '../support/definitions.ts';
import type { Bench } from '../support/report.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length - 1) * p))] as number;
}

interface Typing {
  times: number[];
  /** The longest main-thread task while the definition opened and was first planned and drawn. */
  longestOpening: number;
  longestTask: number;
}

/** Opens `path` in the Design view, then types into the feed rate `keystrokes` times, one redraw at a time. */
async function typeInto(browser: Browser, lan: string, path: string, keystrokes: number): Promise<Typing> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(`${lan}/winding`);
    await page.evaluate(() => {
      const w = window as unknown as { typing: { longest: number; start: number } };
      w.typing = { longest: 0, start: 0 };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.typing.longest = Math.max(w.typing.longest, entry.duration);
      }).observe({ type: 'longtask' });
      document.addEventListener('keydown', () => (w.typing.start = performance.now()), { capture: true });
    });
    await page.getByRole('tab', { name: 'Design' }).click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open definition' }).click();
    await (await chooser).setFiles(path);
    const view = page.locator('[data-testid="view3d"]');
    await view.waitFor({ timeout: 180_000 });
    await page.waitForFunction(
      () =>
        Number(document.querySelector('[data-testid="view3d"]')?.getAttribute('data-frames')) > 0 &&
        Number(document.querySelector('[data-testid="unwrapped"]')?.getAttribute('data-frames')) > 0,
      null,
      { timeout: 180_000 },
    );
    // Long tasks are reported a moment after they end: let those of the opening arrive first.
    await page.waitForTimeout(500);
    const longestOpening = await page.evaluate(() => {
      const w = window as unknown as { typing: { longest: number } };
      const longest = w.typing.longest;
      w.typing.longest = 0;
      return longest;
    });
    const feed = page.getByRole('spinbutton', { name: 'Feed rate (mm/min)' });
    await feed.focus();
    await page.keyboard.press('End');
    const times: number[] = [];
    for (let k = 0; k < keystrokes; k++) {
      // Both views have drawn a frame since the key went down: the new plan is on screen.
      const redrawn = page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const frames = (id: string) =>
              Number(document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-frames'));
            const before = { view: frames('view3d'), unwrapped: frames('unwrapped') };
            const observer = new MutationObserver(() => {
              if (frames('view3d') > before.view && frames('unwrapped') > before.unwrapped) {
                observer.disconnect();
                const w = window as unknown as { typing: { start: number } };
                resolve(performance.now() - w.typing.start);
              }
            });
            observer.observe(document.body, {
              subtree: true,
              attributes: true,
              attributeFilter: ['data-frames'],
            });
          }),
      );
      // Alternately a digit more and one less: every key changes the plan, the value stays valid.
      await page.keyboard.press(k % 2 === 0 ? '7' : 'Backspace');
      times.push(await redrawn);
    }
    await page.waitForTimeout(500);
    const longestTask = await page.evaluate(
      () => (window as unknown as { typing: { longest: number } }).typing.longest,
    );
    return { times: times.sort((a, b) => a - b), longestOpening, longestTask };
  } finally {
    await page.close();
  }
}

export const bench: Bench = async (report) => {
  const dir = await mkdtemp(join(tmpdir(), 'towpath-bench-design-'));
  const million = join(dir, 'million.wind');
  await writeFile(million, JSON.stringify(benchDefinition, null, 2));
  const largest = join(dir, 'avbay_single.wind');
  await writeFile(largest, readFileSync(join(REFERENCE_ROOT, 'avbay_single', 'input.wind')));
  const core = await startCore();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--disable-gpu'],
  });
  try {
    for (const [label, path, keystrokes, target] of [
      ['avbay_single (largest reference)', largest, 41, 150],
      ['1.09M-line definition', million, 5, 1500],
    ] as const) {
      const typing = await typeInto(browser, core.lan, path, keystrokes);
      report(
        `design-keystroke: ${label}, keystroke → both views redrawn, median`,
        'ms',
        percentile(typing.times, 0.5),
        target,
      );
      report(
        `design-keystroke: ${label}, keystroke → both views redrawn, p95`,
        'ms',
        percentile(typing.times, 0.95),
        target,
      );
      report(
        `design-keystroke: ${label}, longest main-thread task while typing`,
        'ms',
        typing.longestTask,
        50,
      );
      report(
        `design-keystroke: ${label}, longest main-thread task while opening`,
        'ms',
        typing.longestOpening,
        50,
      );
    }
  } finally {
    await browser.close();
    await core.stop();
    await rm(dir, { recursive: true, force: true });
  }
};
