// Commands run from a prebuilt bundle (scripts/build-cli.ts writes dist/cli/<name>.mjs and the list
// of sources it was built from) while that bundle is fresh. One module stripped of types and
// resolved at build time starts in a fraction of the time of the dozens it replaces. Used by
// bridge/cli.ts and server/cli.ts (here because the bridge may not import the server).

/**
 * `<root>/dist/cli/<name>.mjs` while every source it was built from is unchanged (size and mtime,
 * as make decides); undefined when there is none or it is stale.
 */
export async function loadFreshBundle(root: URL, name: string): Promise<unknown> {
  // The CommonJS module: an ES import of node:fs builds its namespace, loading fs/promises and more
  // (6 ms of `towpath estop`'s start).
  const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
  let inputs: { path: string; size: number; mtimeMs: number }[];
  try {
    inputs = JSON.parse(readFileSync(new URL(`dist/cli/${name}.inputs.json`, root), 'utf8'));
    for (const input of inputs) {
      const stats = statSync(new URL(input.path, root));
      if (stats.size !== input.size || stats.mtimeMs !== input.mtimeMs) return undefined;
    }
  } catch {
    return undefined; // no bundle, or a listed source is gone
  }
  return import(new URL(`dist/cli/${name}.mjs`, root).href);
}
