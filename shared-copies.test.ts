// The repository keeps its own copies of the design, the specs and the reference cases so that a
// clone tests with nothing beside it. That they match the shared originals in the project's
// workspace is `npm run check:shared` (scripts/shared-drift.ts), not a test: a clone has no
// originals to compare with.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from './reference/paths.ts';
import { files } from './scripts/shared-drift.ts';

const ROOT = import.meta.dirname;

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
});
