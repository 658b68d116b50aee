// The workspace check's comparison, on two small trees made here: a file missing from the copy, one
// only in the copy, one whose bytes differ, and one that matches.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { drift, files } from './shared-drift.ts';

let top = '';
afterEach(() => rmSync(top, { recursive: true, force: true }));

function tree(name: string, contents: Record<string, string>): string {
  const dir = join(top, name);
  for (const [file, text] of Object.entries(contents)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe('shared drift', () => {
  it('names what is missing, extra and different, and nothing that matches', () => {
    top = mkdtempSync(join(tmpdir(), 'towpath-drift-'));
    const original = tree('original', { 'a.md': 'same', 'b/c.wind': 'theirs', 'gone.md': 'x' });
    const copy = tree('copy', { 'a.md': 'same', 'b/c.wind': 'ours', 'new.md': 'y' });
    expect(drift(original, copy)).toEqual({
      missing: ['gone.md'],
      extra: ['new.md'],
      differing: ['b/c.wind'],
    });
    expect(drift(original, original)).toEqual({ missing: [], extra: [], differing: [] });
  });

  it('lists a single file as one entry and a missing path as none', () => {
    top = mkdtempSync(join(tmpdir(), 'towpath-drift-'));
    const dir = tree('t', { 'only.md': 'x' });
    expect(files(join(dir, 'only.md'))).toEqual(['']);
    expect(files(join(dir, 'absent'))).toEqual([]);
  });
});
