// `npm run build:cli`: the winding commands of `towpath` (plan, validate, simulate) as one ES module,
// dist/cli/winding.mjs, beside a list of the sources it was built from (path, size, mtime).
// server/cli.ts imports the bundle only while every listed source is unchanged, else the sources
// themselves. Measured on the 2-core dev machine: one bundled module starts in about a third of
// the CPU time of the ~130 modules it replaces (no per-file type stripping, no module resolution).
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist', 'cli');

/** Bundle name → its entry; server/cli.ts names the same bundles. */
const CLI_BUNDLES = { winding: 'server/cli/winding.ts' } as const;

interface BundleInput {
  path: string;
  size: number;
  mtimeMs: number;
}

for (const [name, entry] of Object.entries(CLI_BUNDLES)) {
  const outfile = join(OUT_DIR, `${name}.mjs`);
  const { metafile } = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Listed after the bundle is written: a source saved during the build makes the list stale, never
  // the bundle silently old.
  const inputs: BundleInput[] = Object.keys(metafile.inputs).map((input) => {
    const path = relative(ROOT, join(process.cwd(), input));
    const { size, mtimeMs } = statSync(join(ROOT, path));
    return { path, size, mtimeMs };
  });
  const list = join(OUT_DIR, `${name}.inputs.json`);
  writeFileSync(`${list}.tmp`, JSON.stringify(inputs));
  renameSync(`${list}.tmp`, list);
}
