import { join } from 'node:path';
import { test } from '@playwright/test';

/**
 * Where a screenshot shown in the README is written: the running test's own output folder
 * (under test-results/), or the tracked docs/screenshots/ only when UPDATE_SCREENSHOTS=1 asks for
 * a refresh. Every run draws slightly different pixels, so writing the tracked files by default
 * would leave a working tree changed by nothing but `npm test`.
 */
export function readmeScreenshot(name: string): string {
  return process.env.UPDATE_SCREENSHOTS === '1'
    ? join('docs', 'screenshots', name)
    : test.info().outputPath(name);
}
