// Commands run from a prebuilt bundle (scripts/build-cli.ts writes dist/cli/<name>.mjs) while that
// bundle is fresh. One module stripped of types and resolved at build time starts in a fraction of
// the time of the dozens it replaces. Used by server/cli/main.ts (here because the bridge may not
// import the server); the entry points bin/towpath.mjs and bin/towpath-bridge.mjs repeat
// loadFreshBundle's two lines in JavaScript, since importing this module would cost them Node's type
// stripper, and the machine bundle calls its own bundleIsFresh (scripts/build-cli.ts).

export interface BundleSource {
  /** Relative to the repository root. */
  path: string;
  size: number;
  /** -1 for a source saved while the bundle was built: the bundle may hold its older text. */
  mtimeMs: number;
}

/**
 * The bundle's first lines: the sources it was built from (path, size, mtime) and
 * `bundleIsFresh()`, true while every one of them is unchanged (as make decides). Inside the
 * bundle, so checking costs no second file to read or module to strip.
 */
export function freshnessHeader(sources: readonly BundleSource[]): string {
  return `// Written by scripts/build-cli.ts (bridge/fresh-bundle.ts): the sources of this bundle.
const BUNDLE_SOURCES = ${JSON.stringify(sources)};
export function bundleIsFresh() {
  // The CommonJS module: an ES import of node:fs builds its namespace (6 ms of towpath estop's start).
  const { statSync } = process.getBuiltinModule('node:fs');
  const root = new URL('../../', import.meta.url);
  return BUNDLE_SOURCES.every(({ path, size, mtimeMs }) => {
    try {
      const stats = statSync(new URL(path, root));
      return stats.size === size && stats.mtimeMs === mtimeMs;
    } catch {
      return false; // a listed source is gone
    }
  });
}
`;
}

/** `<root>/dist/cli/<name>.mjs` while it is fresh; undefined when there is none or it is stale. */
export async function loadFreshBundle(root: URL, name: string): Promise<unknown> {
  const bundle = await import(new URL(`dist/cli/${name}.mjs`, root).href).catch(() => undefined);
  return bundle?.bundleIsFresh?.() === true ? bundle : undefined;
}
