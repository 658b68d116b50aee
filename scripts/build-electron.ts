// Bundles the Electron main process, the machine process and the preload script into
// dist/electron/. Node runs our .ts sources directly everywhere else; Electron's loader does not,
// so its entry points are bundled. The machine process is forked from the main process with
// ELECTRON_RUN_AS_NODE=1 (server/machine/supervisor.ts finds `machine.js` beside `main.js`); the
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
    packages: 'external',
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
