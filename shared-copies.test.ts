// The repository keeps its own copies of the design, the specs and the reference cases so that a
// clone tests with nothing beside it. Where the shared design folder is beside the checkout (as in
// the project's own workspace), the copies must match it byte for byte, so that neither side
// drifts unnoticed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONE_REFERENCE_ROOT, REFERENCE_ROOT } from './reference/paths.ts';

const ROOT = import.meta.dirname;
const SHARED = join(ROOT, '..', 'shared');

/** Each copied tree: where it lives in ../shared, and where its copy lives here. */
const COPIES = [
  { shared: 'DESIGN.md', here: 'docs/DESIGN.md' },
  { shared: 'spec', here: 'docs/spec' },
  { shared: 'reference/winding', here: relative(ROOT, REFERENCE_ROOT) },
  { shared: 'reference/winding-cones', here: relative(ROOT, CONE_REFERENCE_ROOT) },
];

/** The files of a tree relative to its top, sorted; a single file is `['']`, a missing path `[]`. */
function files(top: string): string[] {
  if (!existsSync(top)) return [];
  if (!statSync(top).isDirectory()) return [''];
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [relative(top, join(dir, entry.name))],
    );
  return walk(top).sort();
}

describe('the repository stands alone', () => {
  it('has its own design, specs and reference cases', () => {
    expect(files(join(ROOT, 'docs/DESIGN.md'))).toEqual(['']);
    expect(files(join(ROOT, 'docs/spec'))).toEqual(
      expect.arrayContaining(['winding.md', 'dashboard-api.md', 'interfaces/winding-service.md']),
    );
    const cases = readdirSync(REFERENCE_ROOT, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(cases.length).toBeGreaterThan(0);
    for (const { name } of cases) expect(files(join(REFERENCE_ROOT, name)), name).toContain('input.wind');
  });

  // Without ../shared (a contributor's clone, a packager's build machine) there is nothing to compare.
  describe.skipIf(!existsSync(SHARED))('matches ../shared beside the checkout', () => {
    for (const copy of COPIES) {
      it(`${copy.here} is ../shared/${copy.shared}, file for file and byte for byte`, () => {
        const original = join(SHARED, copy.shared);
        const here = join(ROOT, copy.here);
        expect(files(here)).toEqual(files(original));
        const differing = files(original).filter(
          (file) => !readFileSync(join(original, file)).equals(readFileSync(join(here, file))),
        );
        expect(differing).toEqual([]);
      });
    }
  });
});
