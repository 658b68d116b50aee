// The files a launch names: a double-click on an associated `.wind` file starts the app (or, through
// the single-instance lock, the running one) with the file's path among its arguments.
import { isAbsolute, resolve } from 'node:path';

/**
 * The `.wind` paths among `argv` (Electron's and Chromium's switches and the app's own path are
 * skipped), made absolute against the directory the launch came from.
 */
export function windFilesIn(argv: readonly string[], cwd: string): string[] {
  return argv
    .filter((arg) => !arg.startsWith('-') && arg.toLowerCase().endsWith('.wind'))
    .map((arg) => (isAbsolute(arg) ? arg : resolve(cwd, arg)));
}
