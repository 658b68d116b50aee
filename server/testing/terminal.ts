// Test support: `towpath …` on a real terminal. util-linux `script` runs it on a pseudo-terminal, so
// stdin and stderr are a TTY and typing Ctrl-C (\x03) makes the terminal send SIGINT, or reaches
// readline as a key while it asks a question — exactly as at a keyboard.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './process.ts';

export interface Terminal {
  /** Types on the keyboard. */
  type(text: string): void;
  /** Everything the terminal showed so far. */
  screen(): string;
  /** Resolves once the screen matches; rejects if the program ends first. */
  shows(pattern: RegExp): Promise<void>;
  /** The program's exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

export function towpathOnTerminal(args: string[]): Terminal {
  const command = [process.execPath, join(REPO_ROOT, 'server/cli.ts'), ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(' ');
  // `exec`, and a pinned shell: without $SHELL (as under CI) script runs dash, which outlives the
  // program as its parent and then kills itself with the SIGINT the terminal sent, so the exit code
  // would be 130 whatever the program returned.
  const child = spawn('/usr/bin/script', ['-q', '-e', '-c', `exec ${command}`, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...process.env, SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const seen = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    for (const check of seen) check();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    type: (text) => {
      child.stdin.write(text);
    },
    screen: () => screen,
    exited,
    kill: () => child.kill('SIGKILL'),
    shows: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(screen)) {
            seen.delete(check);
            resolve();
          }
        };
        seen.add(check);
        void exited.then(() => reject(new Error(`exited before ${pattern}: ${screen}`)));
        check();
      }),
  };
}
