// `npm run build:cli`: the `towpath` command table, its winding commands (plan, validate,
// simulate) and e-stop, the `towpath-bridge` command line and the machine process as ES module
// bundles, dist/cli/<name>.mjs (what only some commands use, such as the MCP server, split into
// chunks loaded on demand), each starting with the list of the sources it was built from (path,
// size, mtime). bin/towpath.mjs, bin/towpath-bridge.mjs, server/cli/main.ts and the machine link's start
// (server/machine/spawn.ts) use a bundle only while every listed source is unchanged
// (bridge/fresh-bundle.ts), else the sources. Measured on the 2-core dev machine: a bundle starts
// in about a third of the CPU time of the modules it replaces (no per-file type stripping, no
// module resolution).
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { type BundleSource, freshnessHeader } from '../bridge/fresh-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist', 'cli');

/** How a module inside a bundle names a source file of the checkout, relative to the bundle. */
const fromBundle = (path: string) => relative(OUT_DIR, join(ROOT, path));

/**
 * The command table (server/cli/main.ts) alone: each command it loads on demand stays a module of
 * its own, imported from the sources (the winding commands and the e-stop from their own fresh
 * bundles first, as main.ts says), so `towpath --help` runs one small module and the table's
 * bundle stays fresh whatever command is edited.
 */
const commandsFromSources: Plugin = {
  name: 'commands-from-sources',
  setup(build) {
    const table = join(ROOT, 'server', 'cli', 'main.ts');
    build.onResolve({ filter: /^\.\/.*\.ts$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer === table
        ? { path: fromBundle(join('server', 'cli', args.path)), external: true }
        : undefined,
    );
  },
};

/** The machine process's entry, from the sources: what the machine bundle runs when it is stale. */
const MACHINE_ENTRY = 'server/machine/process/entry.ts';

/**
 * The machine bundle's own entry. The machine link forks dist/cli/machine.mjs whenever it exists, so
 * the bundle itself decides: while fresh it runs the bundled machine process, compiled from the
 * on-disk code cache (a chunk imported after enableCompileCache, which a forked entry module itself
 * cannot use), else the sources. `bundleIsFresh` is the freshness header's, written above this code.
 */
const machineLauncher: Plugin = {
  name: 'machine-launcher',
  setup(build) {
    build.onResolve({ filter: /^machine-launcher$/ }, () => ({ path: 'launcher', namespace: 'machine' }));
    build.onResolve({ filter: /^source:/ }, (args) => ({
      path: fromBundle(args.path.slice('source:'.length)),
      external: true,
    }));
    build.onLoad({ filter: /.*/, namespace: 'machine' }, () => ({
      resolveDir: ROOT,
      loader: 'js',
      contents: [
        "import { enableCompileCache } from 'node:module';",
        'enableCompileCache();',
        `if (bundleIsFresh()) await import(${JSON.stringify(join(ROOT, MACHINE_ENTRY))});`,
        `else await import(${JSON.stringify(`source:${MACHINE_ENTRY}`)});`,
      ].join('\n'),
    }));
  },
};

/** Bundle name → its entry and any options of its own; server/cli/main.ts and bin/ name the same bundles. */
const CLI_BUNDLES: Record<string, { entry: string; options?: BuildOptions }> = {
  towpath: { entry: 'server/cli/main.ts', options: { plugins: [commandsFromSources] } },
  winding: { entry: 'server/cli/winding.ts' },
  bridge: { entry: 'bridge/command-line.ts' },
  estop: { entry: 'server/cli/estop.ts' },
  machine: {
    entry: 'machine-launcher',
    options: {
      plugins: [machineLauncher],
      // Native code (the serial and SQLite drivers) loads from node_modules; the rest is bundled,
      // CommonJS packages (fastify, pino, ws) included, which call `require` for Node's own modules.
      external: ['serialport', 'better-sqlite3'],
      banner: {
        js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
      },
    },
  },
};

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

for (const [name, { entry, options }] of Object.entries(CLI_BUNDLES)) {
  const started = Date.now();
  const { metafile, outputFiles } = await build({
    ...options,
    entryPoints: { [name]: entry.endsWith('.ts') ? join(ROOT, entry) : entry },
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
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [checkedInWindSchema, ...(options?.plugins ?? [])],
  });
  const sources = Object.keys(metafile.inputs).filter((input) => !/^(checked-in|machine):/.test(input));
  // The replaced sources stay listed: editing them makes the bundle stale like any other source.
  const replaced = Object.keys(metafile.inputs).some((input) => input.startsWith('checked-in:'));
  const inputs: BundleSource[] = [
    ...sources.map((input) => join(process.cwd(), input)),
    ...(replaced ? WIND_SCHEMA_SOURCES.map((path) => join(ROOT, path)) : []),
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
