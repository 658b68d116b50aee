import type { Env } from '../config.ts';
import type { ProgressStream } from './progress.ts';

/** Where a command writes and how it learns about the process; injectable for tests. */
export interface CliIo {
  /** Environment to configure from; the process environment when absent. */
  env?: Env;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where progress bars draw (a terminal's stderr); none when absent. */
  progress?: ProgressStream;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  onStopSignal: (handler: (signal: string) => void) => () => void;
}

export interface Command {
  summary: string;
  usage: string;
  /** Resolves with the exit code once the command is finished. */
  run: (args: string[], io: CliIo) => Promise<number>;
}

/** Wrong arguments: exit code 2 with the usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An input or output file problem (missing, unreadable, not writable): exit code 2. */
export class FileProblem extends Error {
  override name = 'FileProblem';
}
