import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { Env } from '../config/index.ts';
import { createProgress, type Progress, type ProgressStream } from './progress.ts';

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
  /**
   * Registers a handler for the parent process going away (checked every second); returns a
   * function that removes it. Absent where there is no parent to watch.
   */
  onParentExit?: (handler: () => void) => () => void;
}

/** A command's code; its summary and usage line live in server/cli/main.ts, which loads it on demand. */
export interface Command {
  /** Resolves with the exit code once the command is finished. */
  run: (args: string[], io: CliIo) => Promise<number>;
  /** The exit code of a failure this command knows (printed as one line), or undefined for a bug. */
  exitCode?: (error: unknown) => number | undefined;
}

/** Wrong arguments: exit code 2 with the usage line (every command). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An input or output file problem (missing, unreadable, not writable): exit code 2 (every command). */
export class FileProblem extends Error {
  override name = 'FileProblem';
}

/** A command's options and positionals; a parse failure is a UsageError with parseArgs' first line. */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
}

/** The one positional argument a command takes; `what` names it in the error when it is missing. */
export function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? `missing ${what}` : `unexpected argument '${positionals[1]}'`,
    );
  }
  return positionals[0] as string;
}

/** One JSON document on one line of stdout (what --json prints). */
export function writeJson(io: CliIo, body: unknown): void {
  io.stdout(`${JSON.stringify(body)}\n`);
}

const NOT_A_TERMINAL: ProgressStream = { isTTY: false, write: () => {} };

/** A progress bar on `io.progress`, or one that draws nothing when no person watches. */
export function progressBar(io: CliIo, label: string, unit: string, total = 0): Progress {
  return createProgress({ stream: io.progress ?? NOT_A_TERMINAL, label, total, unit });
}
