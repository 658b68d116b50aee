// Test support: run our commands as real child processes, the way a person or a script would.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr or stdout matches, with the match; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  finished: Promise<Finished>;
}

/**
 * Starts `node <script> ...args` with the same Node that runs the tests; `detached` gives it a
 * session (and on Linux a CPU share, an autogroup) of its own.
 */
export function startNode(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  options: { detached?: boolean } = {},
): Running {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    changed();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    changed();
  });
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
      changed();
    });
  });
  let ended = false;
  void finished.then(() => {
    ended = true;
  });

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    finished,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = stderr.match(pattern) ?? stdout.match(pattern);
          if (match) {
            listeners.delete(check);
            resolve(match);
          } else if (ended || child.exitCode !== null) {
            listeners.delete(check);
            reject(new Error(`process ended before ${pattern}; stderr: ${stderr}`));
          }
        };
        listeners.add(check);
        check();
      }),
  };
}

export function runNode(script: string, args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return startNode(script, args, env).finished;
}
