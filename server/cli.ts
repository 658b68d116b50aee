// `towpath`: the command's entry point, deliberately tiny. `towpath estop` is timed from spawn to
// M112 (issue 11: at most 30 ms more than starting an empty module), and every line of this file is
// type-stripped and compiled before anything runs: the e-stop goes straight to its own bundle (or
// its sources) from here, importing no other TypeScript module; every other command goes through
// the command table in cli/main.ts.

if (import.meta.main) {
  const [name, ...args] = process.argv.slice(2);
  if (name === 'estop' && args.every((arg) => arg === '--json')) {
    // bridge/fresh-bundle.ts's loadFreshBundle, inlined: importing it would cost the e-stop 4 ms.
    const bundle = await import(new URL('../dist/cli/estop.mjs', import.meta.url).href).catch(
      () => undefined,
    );
    const { estop } = (
      bundle?.bundleIsFresh?.() === true ? bundle : await import('./cli/estop.ts')
    ) as typeof import('./cli/estop.ts');
    // The estop command reports its own failures (exit 3) and takes no other argument here; anything
    // else is a bug, said in one line as cli/main.ts would.
    process.exitCode = await estop
      .run(args, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        onStopSignal: () => () => {},
      })
      .catch((error: unknown) => {
        process.stderr.write(`towpath: unexpected error: ${(error as Error)?.message ?? String(error)}\n`);
        return 1;
      });
    setTimeout(() => process.exit(), 250).unref();
  } else {
    // Compiled modules are cached on disk between runs (keyed by their text), so a command's modules
    // are stripped of types and compiled once, not at every start.
    process.getBuiltinModule('node:module').enableCompileCache();
    await (await import('./cli/main.ts')).runProcess();
  }
}
