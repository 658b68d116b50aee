// `node bridge/cli.ts …` (`npm run bridge`): the task bridge's command line (command-line.ts), from
// its prebuilt bundle while that is fresh (fresh-bundle.ts), else from the sources. Nothing else is
// imported here: this file's imports are loaded before it can choose.
import { enableCompileCache } from 'node:module';
import { loadFreshBundle } from './fresh-bundle.ts';

type CommandLine = typeof import('./command-line.ts');

if (import.meta.main) {
  // Compiled modules are cached on disk between runs (keyed by their text).
  enableCompileCache();
  const bundled = (await loadFreshBundle(new URL('../', import.meta.url), 'bridge')) as
    | CommandLine
    | undefined;
  (bundled ?? (await import('./command-line.ts'))).runProcess();
}
