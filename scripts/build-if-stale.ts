// `npm start`'s build: each part of `npm run build` (the renderer, the Electron bundles, the CLI
// bundles) runs only when a file it is built from changed since its last build here, so a start
// with nothing changed builds nothing (a full build costs 12–50 s on a 2-core machine). Each part's
// last build leaves a stamp, dist/stamps/<part>.mjs: the files it was built from (path, size, mtime)
// in the CLI bundles' own freshness header (bridge/fresh-bundle.ts), so both decide staleness the
// same way. A part is stale when its stamp or an output is missing, a listed file changed or is
// gone, or a file appeared among its inputs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BundleSource, freshnessHeader } from '../bridge/fresh-bundle.ts';

export interface BuildStep {
  /** The stamp's name. */
  name: string;
  /** What the start-up line calls the part. */
  label: string;
  /** Files and folders (walked) it is built from, relative to the root; tests are never inputs. */
  inputs: readonly string[];
  /** Files the build writes; a missing one means the part must be built. */
  outputs: readonly string[];
  /** The package.json script that builds it: one home for how each part is built. */
  script: string;
}

// Every input list names the lockfile (a dependency's update changes the bundle) and the part's
// own build script or config (a changed build makes different output from the same sources).
export const BUILD_STEPS: readonly BuildStep[] = [
  {
    name: 'renderer',
    label: 'the renderer',
    // The renderer's only import outside these two folders is a type, erased from the bundle.
    inputs: ['renderer', 'engine', 'package-lock.json'],
    outputs: ['dist/renderer/index.html'],
    script: 'build:renderer',
  },
  {
    name: 'electron',
    label: 'the Electron bundles',
    inputs: ['electron', 'server', 'engine', 'bridge', 'scripts/build-electron.ts', 'package-lock.json'],
    outputs: [
      'dist/electron/main.js',
      'dist/electron/machine.js',
      'dist/electron/planner-thread.js',
      'dist/electron/preload.cjs',
    ],
    script: 'build:electron',
  },
  {
    name: 'cli',
    label: 'the CLI bundles',
    inputs: ['server', 'engine', 'bridge', 'resources/schemas', 'scripts/build-cli.ts', 'package-lock.json'],
    // The bundles scripts/build-cli.ts names (CLI_BUNDLES); it is an input, so a new one rebuilds.
    outputs: ['towpath', 'winding', 'bridge', 'estop', 'machine'].map((name) => `dist/cli/${name}.mjs`),
    script: 'build:cli',
  },
];

const STAMP_DIR = 'dist/stamps';
/** Never read by a build: dependencies are followed through the lockfile, tests are not bundled. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);
const isTest = (name: string) => /\.test\.[cm]?[jt]sx?$/.test(name);

/** Every input file of a step now, with its size and mtime, sorted by path. */
export function currentSources(root: string, step: BuildStep): BundleSource[] {
  const found = new Map<string, BundleSource>();
  const visit = (path: string) => {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(join(root, path));
    } catch {
      return; // an input that does not exist (yet) is simply not listed
    }
    if (stats.isDirectory()) {
      for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
        if (entry.isDirectory() ? SKIPPED_FOLDERS.has(entry.name) : isTest(entry.name)) continue;
        visit(join(path, entry.name));
      }
    } else if (stats.isFile()) {
      found.set(path, { path, size: stats.size, mtimeMs: stats.mtimeMs });
    }
  };
  for (const input of step.inputs) visit(input);
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

const stampFile = (root: string, step: BuildStep) => join(root, STAMP_DIR, `${step.name}.mjs`);

/** Why the step must be built, or undefined when its outputs are as fresh as its inputs. */
export async function staleness(root: string, step: BuildStep): Promise<string | undefined> {
  const missing = step.outputs.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  const file = stampFile(root, step);
  if (!existsSync(file)) return 'it has not been built here';
  // The stamp's mtime in the URL: a stamp rewritten since it was last imported is read again.
  const url = `${pathToFileURL(file).href}?${statSync(file).mtimeMs}`;
  const stamp = (await import(url).catch(() => undefined)) as
    | { bundleIsFresh?: () => boolean; BUNDLE_SOURCES?: BundleSource[] }
    | undefined;
  if (!stamp?.BUNDLE_SOURCES) return 'its stamp is unreadable';
  const now = new Map(currentSources(root, step).map((source) => [source.path, source]));
  if (stamp.bundleIsFresh?.() !== true) {
    // Only to name a file in the start-up line; the stamp itself decided.
    const changed = stamp.BUNDLE_SOURCES.find(({ path, size, mtimeMs }) => {
      const current = now.get(path);
      return current?.size !== size || current.mtimeMs !== mtimeMs;
    });
    return changed
      ? `${changed.path} ${now.has(changed.path) ? 'changed' : 'is gone'}`
      : 'its sources changed';
  }
  const listed = new Set(stamp.BUNDLE_SOURCES.map((source) => source.path));
  const added = [...now.keys()].find((path) => !listed.has(path));
  return added ? `${added} is new` : undefined;
}

/**
 * Builds the step if it is stale and stamps it; returns whether it built. The inputs are read
 * before the build, so a file saved while it runs makes the next start build again.
 */
export async function buildIfStale(
  root: string,
  step: BuildStep,
  run: (step: BuildStep) => void,
  say: (line: string) => void = () => {},
): Promise<boolean> {
  if (!existsSync(stampFile(root, step))) {
    // `npm ci` (prepare) and `npm run build` build everything and leave no stamp: outputs newer than
    // every input are taken as that build's, or the first start after an install would build again.
    const sources = currentSources(root, step);
    if (outputsNewerThan(root, step, sources)) {
      writeStamp(root, step, sources);
      return false;
    }
  }
  const reason = await staleness(root, step);
  if (reason === undefined) return false;
  say(`Building ${step.label} (${reason})…`);
  const sources = currentSources(root, step);
  run(step);
  writeStamp(root, step, sources);
  return true;
}

function writeStamp(root: string, step: BuildStep, sources: BundleSource[]) {
  // The header finds the root two folders above the stamp, as it does above dist/cli/<name>.mjs.
  const file = stampFile(root, step);
  mkdirSync(join(root, STAMP_DIR), { recursive: true });
  writeFileSync(`${file}.${process.pid}.tmp`, `${freshnessHeader(sources)}export { BUNDLE_SOURCES };\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/** Every output exists and is newer than the newest input (make's rule). */
function outputsNewerThan(root: string, step: BuildStep, sources: BundleSource[]): boolean {
  const newestInput = Math.max(0, ...sources.map((source) => source.mtimeMs));
  return step.outputs.every((output) => {
    const stats = statSync(join(root, output), { throwIfNoEntry: false });
    return stats !== undefined && stats.mtimeMs > newestInput;
  });
}

/** Runs a step's package.json script, as `npm run build` would; a failed build stops the start. */
function runScript(root: string) {
  return (step: BuildStep) => {
    const npm = process.env.npm_execpath;
    const [command, args] = npm
      ? [process.execPath, [npm, 'run', '--silent', step.script]]
      : ['npm', ['run', '--silent', step.script]];
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      throw new Error(
        `npm run ${step.script} failed (${result.error?.message ?? `exit code ${result.status}`})`,
      );
    }
  };
}

if (import.meta.main) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    for (const step of BUILD_STEPS) {
      await buildIfStale(root, step, runScript(root), (line) => process.stderr.write(`${line}\n`));
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
