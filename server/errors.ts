/**
 * A start-up failure the user can fix (port taken, data dir unusable, bad setting). Its message is
 * the one line the CLI prints before exiting 1; no stack trace is shown for it.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
