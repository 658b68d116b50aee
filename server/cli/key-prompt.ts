// A question on the terminal answered by one key, without Enter: the stream's pause prompt offers
// an emergency stop, and a line-buffered answer left the machine paused until the operator also
// found Enter. The terminal is in raw mode only while the question is open, and goes back to the
// mode it was in on every way out: a key, end of input, the question withdrawn, or the process
// ending while it is open.
import type { ReadStream } from 'node:tty';

/** Asks the operator on the terminal; Ctrl-C while asking calls `onInterrupt`. */
export type Prompt = (
  question: string,
  signal: AbortSignal,
  onInterrupt: () => void,
) => Promise<string | null>;

/** What a single-key question needs of the terminal: process.stdin, or a pseudo-terminal in tests. */
export type KeyInput = Pick<ReadStream, 'isRaw' | 'setRawMode' | 'on' | 'off' | 'resume' | 'pause'>;

export interface KeyPromptOptions {
  input: KeyInput;
  output: { write(text: string): unknown };
  /** The keys that answer (lower case; their upper case answers too); any other key is ignored. */
  keys: readonly string[];
  /** Hooks the process's end, so a raw terminal is handed back even then; the process by default. */
  onExit?: (restore: () => void) => () => void;
}

const CTRL_C = 0x03;
const CTRL_D = 0x04;

/** A prompt answered by one of `keys`; resolves with that key, or null at end of input or when withdrawn. */
export function keyPrompt({ input, output, keys, onExit = onProcessExit }: KeyPromptOptions): Prompt {
  return (question, signal, onInterrupt) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(null);
      const wasRaw = input.isRaw;
      let open = true;
      const restore = () => {
        if (!open) return;
        open = false;
        input.off('data', onData);
        signal.removeEventListener('abort', withdraw);
        unhookExit();
        input.setRawMode(wasRaw);
        // Reading stops with the question, or a finished job's process would wait on the keyboard.
        input.pause();
      };
      const finish = (answer: string | null) => {
        restore();
        output.write(answer === null ? '\n' : `${answer}\n`);
        resolve(answer);
      };
      const withdraw = () => finish(null);
      function onData(chunk: Buffer | string) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        for (const byte of bytes) {
          if (!open) return;
          // Raw mode turns Ctrl-C into a byte: it means what the terminal's SIGINT would have.
          if (byte === CTRL_C) onInterrupt();
          else if (byte === CTRL_D) finish(null);
          else {
            const key = String.fromCharCode(byte).toLowerCase();
            if (keys.includes(key)) finish(key);
          }
        }
      }
      const unhookExit = onExit(restore);
      signal.addEventListener('abort', withdraw, { once: true });
      output.write(question);
      input.setRawMode(true);
      input.on('data', onData);
      input.resume();
    });
}

function onProcessExit(restore: () => void): () => void {
  process.once('exit', restore);
  return () => process.off('exit', restore);
}
