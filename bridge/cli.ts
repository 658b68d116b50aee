// `node bridge/cli.ts …`: the same command as bin/towpath-bridge.mjs (the entry point people run,
// which lives there), kept for scripts and tests that start the TypeScript entry. Nothing is
// imported here: the one copy of the start-up path (the bundle while fresh, else the sources) is
// the .mjs.

if (import.meta.main) await import(new URL('../bin/towpath-bridge.mjs', import.meta.url).href);
