// `npm run build:cli`: the winding commands of `towpath` (plan, validate, simulate) and the
// `towpath-bridge` command line as ES module bundles, dist/cli/<name>.mjs (what only some commands
// use, such as the MCP server, split into chunks loaded on demand), each starting with the list of
// the sources it was built from (path, size, mtime). server/cli.ts, server/cli/main.ts and
// bridge/cli.ts use a bundle only while every listed source is unchanged (bridge/fresh-bundle.ts),
// else the sources. Measured
// on the 2-core dev machine: a bundle starts in about a third of the CPU time of the modules it
// replaces (no per-file type stripping, no module resolution).
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { type BundleSource, freshnessHeader } from '../bridge/fresh-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist', 'cli');

/** Bundle name → its entry; server/cli/main.ts (and server/cli.ts for estop) name the same bundles. */
const CLI_BUNDLES = {
  winding: 'server/cli/winding.ts',
  bridge: 'bridge/command-line.ts',
  estop: 'server/cli/estop.ts',
} as const;

// The loader compiles its field table from the `.wind` JSON Schema, which engine/wind/json-schema.ts
// generates from the zod schema at every start. The bundle takes the checked-in document instead
// (a test keeps the two equal), which leaves zod out: a quarter of the bundle's start-up.
const WIND_SCHEMA_SOURCES = ['engine/wind/json-schema.ts', 'engine/wind/schema.ts'];
const WIND_SCHEMA_FILE = join(ROOT, 'resources', 'schemas', 'wind.schema.json');
const checkedInWindSchema: Plugin = {
  name: 'checked-in-wind-schema',
  setup(build) {
    build.onResolve({ filter: /\/json-schema\.ts$/ }, (args) =>
      join(args.resolveDir, args.path) === join(ROOT, WIND_SCHEMA_SOURCES[0] as string)
        ? { path: 'wind-json-schema', namespace: 'checked-in' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'checked-in' }, () => ({
      resolveDir: ROOT,
      loader: 'js',
      contents: [
        `import schema from ${JSON.stringify(WIND_SCHEMA_FILE)} with { type: 'json' };`,
        'export const WIND_SCHEMA_ID = schema.$id;',
        'export function windJsonSchema() { return structuredClone(schema); }',
        "export function renderWindJsonSchema() { throw new Error('renderWindJsonSchema is not in the CLI bundle'); }",
      ].join('\n'),
    }));
  },
};

for (const [name, entry] of Object.entries(CLI_BUNDLES)) {
  const started = Date.now();
  const { metafile, outputFiles } = await build({
    entryPoints: { [name]: join(ROOT, entry) },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    write: false,
    plugins: [checkedInWindSchema],
    legalComments: 'none',
    logLevel: 'warning',
  });
  const sources = Object.keys(metafile.inputs).filter((input) => !input.startsWith('checked-in:'));
  // The replaced sources stay listed: editing them makes the bundle stale like any other source.
  const inputs: BundleSource[] = [
    ...sources.map((input) => join(process.cwd(), input)),
    ...WIND_SCHEMA_SOURCES.map((path) => join(ROOT, path)),
  ].map((absolute) => {
    const path = relative(ROOT, absolute);
    const { size, mtimeMs } = statSync(join(ROOT, path));
    // Saved while esbuild read it: the bundle may hold the older text, so list it as stale.
    return { path, size, mtimeMs: mtimeMs >= started ? -1 : mtimeMs };
  });
  const bundleFile = join(OUT_DIR, `${name}.mjs`);
  // Renamed into place: a command starting meanwhile reads the old bundle or the new one, whole.
  mkdirSync(join(OUT_DIR, 'chunks'), { recursive: true });
  // Chunks first: a bundle renamed into place finds every chunk it imports.
  for (const file of outputFiles
    .sort((a, b) => Number(a.path.includes('/chunks/')) - Number(b.path.includes('/chunks/')))
    .reverse()) {
    const contents = file.path === bundleFile ? freshnessHeader(inputs) + file.text : file.contents;
    writeFileSync(`${file.path}.${process.pid}.tmp`, contents);
    renameSync(`${file.path}.${process.pid}.tmp`, file.path);
  }
}
