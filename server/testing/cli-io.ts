// Test support: run a `towpath` command in-process and see what it printed.
import type { CliIo } from '../cli/io.ts';

export interface RecordingIo extends CliIo {
  /** Every chunk the command wrote to stdout, in order. */
  out: string[];
  /** Every chunk the command wrote to stderr, in order. */
  err: string[];
  /** Delivers a stop signal (SIGINT, SIGTERM) to the handler the command registered, if any. */
  signal: (name: string) => void;
}

/** A CliIo that records both streams and lets the test play the terminal's Ctrl-C. */
export function recordingIo(): RecordingIo {
  const out: string[] = [];
  const err: string[] = [];
  let handler: ((signal: string) => void) | undefined;
  return {
    out,
    err,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    onStopSignal: (h) => {
      handler = h;
      return () => {
        handler = undefined;
      };
    },
    signal: (name) => handler?.(name),
  };
}
