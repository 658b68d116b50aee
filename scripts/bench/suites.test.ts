// The runner names its suites instead of finding them by file name: each listed suite must load
// and export a bench, and every module in suites/ must be listed, or `npm run bench` would skip it.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSuite, SUITES } from '../bench.ts';

describe('bench suites', () => {
  it('lists every module under scripts/bench/suites/, and nothing else', () => {
    const files = readdirSync(new URL('./suites/', import.meta.url))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''));
    expect([...SUITES].sort()).toEqual(files.sort());
  });

  it('loads each suite without running it', { timeout: 60_000 }, async () => {
    for (const name of SUITES) expect(typeof (await loadSuite(name)), name).toBe('function');
  });
});
