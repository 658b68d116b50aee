// Bundles the Electron main process and preload script into dist/electron/. Node runs our .ts
// sources directly everywhere else; Electron's loader does not, so its entry points are bundled.
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
    entryPoints: ['electron/preload.ts'],
    outfile: 'dist/electron/preload.cjs',
    // A sandboxed preload script must be a single CommonJS file that requires only 'electron'.
    format: 'cjs',
    external: ['electron'],
  }),
]);
