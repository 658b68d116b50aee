#!/usr/bin/env node
// `towpath`: the command people and scripts run (package.json `bin`). Plain JavaScript, so Node
// starts it without its type stripper (about 100 ms of a TypeScript entry's start on a 2-core
// machine): it runs the prebuilt bundles of dist/cli/ (scripts/build-cli.ts) while they are fresh,
// else the TypeScript sources of the checkout, which Node 22 runs directly. The e-stop goes straight
// to its own bundle from here, loading no other module; every other command goes through the command
// table (server/cli/main.ts, bundled as dist/cli/towpath.mjs). A stale or missing bundle is never
// rebuilt here: the sources answer instead, `npm run build:cli` makes the bundles fresh again.

// Bundles and sources use Node 22's APIs, and the sources need its type stripping: on an older Node
// say so in one line rather than fail on a missing function.
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(
    `towpath: needs Node.js 22 or newer (this is ${process.version}); run it as 'npx towpath' in the Towpath folder, which uses the project's pinned Node\n`,
  );
  process.exit(1);
}

/** `dist/cli/<name>.mjs` while every source it was built from is unchanged (bridge/fresh-bundle.ts). */
async function freshBundle(name) {
  const bundle = await import(new URL(`../dist/cli/${name}.mjs`, import.meta.url).href).catch(
    () => undefined,
  );
  return bundle?.bundleIsFresh?.() === true ? bundle : undefined;
}

const [name, ...args] = process.argv.slice(2);
if (name === 'estop' && args.every((arg) => arg === '--json')) {
  const { estop } =
    (await freshBundle('estop')) ?? (await import(new URL('../server/cli/estop.ts', import.meta.url).href));
  // The e-stop reports its own failures (exit 3) and takes no other argument here; anything else is
  // a bug, said in one line as the command table would.
  process.exitCode = await estop
    .run(args, {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      onStopSignal: () => () => {},
    })
    .catch((error) => {
      process.stderr.write(`towpath: unexpected error: ${error?.message ?? String(error)}\n`);
      return 1;
    });
  setTimeout(() => process.exit(), 250).unref();
} else {
  // Compiled modules are cached on disk between runs (keyed by their text): a command's modules are
  // compiled (and, from the sources, stripped of types) once, not at every start.
  process.getBuiltinModule('node:module').enableCompileCache();
  const { runProcess } =
    (await freshBundle('towpath')) ?? (await import(new URL('../server/cli/main.ts', import.meta.url).href));
  await runProcess();
}
