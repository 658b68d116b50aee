// `npm run check:shared`: in the project's workspace, where the shared design folder sits beside
// the checkout (../shared), the repository's copies of the design, the specs and the reference
// cases must match it file for file and byte for byte, so that neither side drifts unnoticed. This
// is a workspace check, not a test: a clone on its own has nothing to compare with, and its tests
// read only the copies (shared-copies.test.ts checks those are there).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CONE_REFERENCE_ROOT, REFERENCE_ROOT } from '../reference/paths.ts';

const ROOT = join(import.meta.dirname, '..');

/** Each copied tree: where it lives in the shared folder, and where its copy lives here. */
export const COPIES: readonly { shared: string; here: string }[] = [
  { shared: 'DESIGN.md', here: 'docs/DESIGN.md' },
  { shared: 'spec', here: 'docs/spec' },
  { shared: 'reference/winding', here: relative(ROOT, REFERENCE_ROOT) },
  { shared: 'reference/winding-cones', here: relative(ROOT, CONE_REFERENCE_ROOT) },
];

/** The files of a tree relative to its top, sorted; a single file is `['']`, a missing path `[]`. */
export function files(top: string): string[] {
  if (!existsSync(top)) return [];
  if (!statSync(top).isDirectory()) return [''];
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [relative(top, join(dir, entry.name))],
    );
  return walk(top).sort();
}

/** How a copy differs from its original: files only in one of them, and files whose bytes differ. */
export function drift(
  original: string,
  copy: string,
): { missing: string[]; extra: string[]; differing: string[] } {
  const theirs = files(original);
  const ours = files(copy);
  const both = theirs.filter((file) => ours.includes(file));
  return {
    missing: theirs.filter((file) => !ours.includes(file)),
    extra: ours.filter((file) => !theirs.includes(file)),
    differing: both.filter(
      (file) => !readFileSync(join(original, file)).equals(readFileSync(join(copy, file))),
    ),
  };
}

if (import.meta.main) {
  const shared = process.argv[2] ?? join(ROOT, '..', 'shared');
  if (!existsSync(shared)) {
    process.stderr.write(`check:shared: no shared folder at ${shared}; nothing to compare\n`);
    process.exit(2);
  }
  let drifted = false;
  for (const { shared: from, here } of COPIES) {
    const { missing, extra, differing } = drift(join(shared, from), join(ROOT, here));
    const lines = [
      ...missing.map((file) => `missing here: ${join(here, file)}`),
      ...extra.map((file) => `not in the shared folder: ${join(here, file)}`),
      ...differing.map((file) => `differs: ${join(here, file)}`),
    ];
    if (lines.length > 0) drifted = true;
    process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : `${here}: same as ${from}\n`);
  }
  process.exit(drifted ? 1 : 0);
}
