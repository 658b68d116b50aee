// The single-key question on a real pseudo-terminal (a socat pair): keys typed at one end reach a
// tty.ReadStream on the other, and `stty` reads the terminal's mode as the shell would see it.
import { execFileSync } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../engine/testing/eventually.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { keyPrompt } from './key-prompt.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Line editing on (icanon) or off (-icanon), as `stty` reports it for the terminal at `path`. */
const canonical = (path: string) =>
  !/(^|\s)-icanon(\s|$)/.test(execFileSync('stty', ['-F', path, '-a']).toString());

async function terminal() {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  // A terminal as a shell leaves it: line editing and signals on.
  execFileSync('stty', ['-F', pair.near, 'sane']);
  const input = new ReadStream(openSync(pair.near, 'r+'));
  cleanups.push(() => input.destroy());
  const keyboard = openSync(pair.far, 'w');
  const shown: string[] = [];
  let exitHook: (() => void) | undefined;
  const ask = keyPrompt({
    input,
    output: { write: (text: string) => shown.push(text) },
    keys: ['r', 'c', 'e'],
    onExit: (restore) => {
      exitHook = restore;
      return () => {
        exitHook = undefined;
      };
    },
  });
  return {
    path: pair.near,
    ask,
    shown,
    type: (text: string) => writeSync(keyboard, text),
    exit: () => exitHook?.(),
    hooked: () => exitHook !== undefined,
  };
}

describe('keyPrompt on a pseudo-terminal', () => {
  it('answers with one key, no Enter, and hands the terminal back in line mode', async () => {
    const t = await terminal();
    expect(canonical(t.path)).toBe(true);
    const answer = t.ask('Type r, c or e: ', new AbortController().signal, () => {});
    expect(canonical(t.path)).toBe(false);
    expect(t.hooked()).toBe(true);
    // Keys that answer nothing are ignored; the first answering key (any case) decides.
    t.type('x\rE');
    expect(await answer).toBe('e');
    expect(canonical(t.path)).toBe(true);
    expect(t.hooked()).toBe(false);
    expect(t.shown).toEqual(['Type r, c or e: ', 'e\n']);
  });

  it('passes Ctrl-C to the caller and keeps asking', async () => {
    const t = await terminal();
    let interrupts = 0;
    const answer = t.ask('?', new AbortController().signal, () => interrupts++);
    t.type('\x03');
    await eventually(() => interrupts === 1);
    t.type('r');
    expect(await answer).toBe('r');
    expect(interrupts).toBe(1);
    expect(canonical(t.path)).toBe(true);
  });

  it('ends with null at end of input (Ctrl-D), back in line mode', async () => {
    const t = await terminal();
    const answer = t.ask('?', new AbortController().signal, () => {});
    t.type('\x04');
    expect(await answer).toBeNull();
    expect(canonical(t.path)).toBe(true);
  });

  it('ends with null when the question is withdrawn, back in line mode', async () => {
    const t = await terminal();
    const question = new AbortController();
    const answer = t.ask('?', question.signal, () => {});
    expect(canonical(t.path)).toBe(false);
    question.abort();
    expect(await answer).toBeNull();
    expect(canonical(t.path)).toBe(true);
    // A question withdrawn before it is asked never touches the terminal.
    expect(await t.ask('?', question.signal, () => {})).toBeNull();
    expect(canonical(t.path)).toBe(true);
  });

  it('hands the terminal back if the process ends while the question is open', async () => {
    const t = await terminal();
    void t.ask('?', new AbortController().signal, () => {});
    expect(canonical(t.path)).toBe(false);
    t.exit();
    expect(canonical(t.path)).toBe(true);
  });

  it('hands the terminal back as it found it when that was already raw', async () => {
    const t = await terminal();
    execFileSync('stty', ['-F', t.path, 'raw']);
    const answer = t.ask('?', new AbortController().signal, () => {});
    t.type('c');
    expect(await answer).toBe('c');
    expect(canonical(t.path)).toBe(false);
  });
});
