// Bundles the Electron main process, the machine process and the preload script into
// dist/electron/. Node runs our .ts sources directly everywhere else; Electron's loader does not,
// so its entry points are bundled. The machine process is forked from the main process with
// ELECTRON_RUN_AS_NODE=1 (server/machine/spawn.ts finds `machine.js` beside `main.js`); the
// winding door's planner threads run `planner-thread.js` from beside it too (planner-threads.ts).
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
} as const;

await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: 'dist/electron/main.js',
    format: 'esm',
    // Dependencies load from node_modules at run time (electron-builder packs them); native ones
    // such as the database and serial drivers cannot be bundled anyway.
    packages: 'external',
  }),
  build({
    ...common,
    entryPoints: ['server/machine/process/entry.ts'],
    outfile: 'dist/electron/machine.js',
    format: 'esm',
    // Its dependencies bundled too (not the serial driver's native code): loading fastify, pino and
    // ws from node_modules file by file took most of the machine process's start (0.65 s against
    // 0.3 s, fork to door listening), and a start within 0.5 s is its target. Their CommonJS code
    // calls `require` for Node's own modules. The SQLite driver (the machine database) is native too.
    external: ['serialport', 'better-sqlite3'],
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
  }),
  build({
    ...common,
    entryPoints: ['server/winding/planner-thread.ts'],
    outfile: 'dist/electron/planner-thread.js',
    format: 'esm',
    packages: 'external',
  }),
  build({
    ...common,
    entryPoints: ['electron/preload.ts'],
    outfile: 'dist/electron/preload.cjs',
    // A sandboxed preload script must be a single CommonJS file that requires only 'electron'.
    format: 'cjs',
    external: ['electron'],
  }),
]);
