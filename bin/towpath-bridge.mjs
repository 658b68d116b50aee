#!/usr/bin/env node
// `towpath-bridge`: the task bridge's command line (bridge/command-line.ts; package.json `bin`).
// Plain JavaScript, so Node starts it without its type stripper: it runs the prebuilt bundle
// dist/cli/bridge.mjs (scripts/build-cli.ts) while that is fresh, else the TypeScript sources of the
// checkout, which Node 22 runs directly. A stale or missing bundle is never rebuilt here.

if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(
    `towpath-bridge: needs Node.js 22 or newer (this is ${process.version}); run it as 'npx towpath-bridge' in the Towpath folder, which uses the project's pinned Node\n`,
  );
  process.exit(1);
}

// Compiled modules are cached on disk between runs (keyed by their text).
process.getBuiltinModule('node:module').enableCompileCache();
// bridge/fresh-bundle.ts's loadFreshBundle, in JavaScript: importing the .ts would cost the type stripper.
const bundle = await import(new URL('../dist/cli/bridge.mjs', import.meta.url).href).catch(() => undefined);
const { runProcess } =
  bundle?.bundleIsFresh?.() === true
    ? bundle
    : await import(new URL('../bridge/command-line.ts', import.meta.url).href);
runProcess();
