// Test support: a scripted Marlin. It checks line numbers and checksums the way Marlin's command
// queue does, records every command it accepts, and can be told to misbehave the ways a real
// controller and a real serial link do. It speaks through a `send` function, so it runs on the far
// end of a pseudo-terminal (attachFakeMarlin) or of an in-memory link alike.
import { type Clock, systemClock, type TimerHandle } from '../../../engine/machine/clock.ts';
import { checksum } from '../../../engine/machine/program.ts';

/** What the fake does with one well-formed line instead of accepting it and answering `ok`. */
export type Reaction =
  /** Answer as if the checksum did not match (`Error:checksum mismatch` + `Resend:` + `ok`). */
  | { kind: 'corrupt' }
  /** Answer as if a line had been lost before this one. */
  | { kind: 'wrong-number' }
  /** Answer `Resend:` for another line than the one sent. */
  | { kind: 'resend-other'; line: number }
  /** Accept but never acknowledge (a lost `ok`). */
  | { kind: 'silent' }
  /**
   * Drop the line (as if it never arrived) and from then on acknowledge nothing, sending `text`
   * every `everyMs` for ever: OctoPrint's virtual printer after losing a resent line says `wait`.
   */
  | { kind: 'stall'; everyMs: number; text?: string }
  /** Accept, report `busy: processing` every `everyMs` for `forMs`, then acknowledge. */
  | { kind: 'busy'; forMs: number; everyMs: number; text?: string }
  /** Accept, send these lines, then acknowledge. */
  | { kind: 'say'; lines: string[] }
  /** Reboot instead of accepting (`start` and a banner; the line counter resets). */
  | { kind: 'restart' }
  /** Send this line (a halt or an `Error:`) instead of accepting, then answer nothing more. */
  | { kind: 'die'; line: string };

export interface FakeMarlinOptions {
  /** Sends text to the host. */
  send: (text: string) => void;
  clock?: Clock;
  /** Delay before each `ok` (a slow controller). */
  ackDelayMs?: number;
  capabilities?: Record<string, 0 | 1>;
  /** Acknowledge with `ok N<n> P<n> B<n>`. */
  advancedOk?: boolean;
  /** Asked for every well-formed framed line except M110; undefined = accept normally. */
  react?: (line: { n: number; command: string; attempt: number }) => Reaction | undefined;
  /** Lines to send when the first byte arrives, as a board resetting on open would. */
  banner?: string[];
  /**
   * After a kill, `M999` brings it back (as firmware whose halt is Marlin's `stop()` does, or a
   * board that resets when its port opens); otherwise it stays dead until replaced.
   */
  takesM999?: boolean;
}

export const FAKE_FIRMWARE = 'Marlin 2.1.2.5 (Towpath fake)';

const DEFAULT_CAPABILITIES: Record<string, 0 | 1> = {
  SERIAL_XON_XOFF: 0,
  EEPROM: 1,
  AUTOREPORT_TEMP: 1,
  EMERGENCY_PARSER: 1,
  HOST_ACTION_COMMANDS: 1,
};

interface Waiter {
  check: () => boolean;
  resolve: () => void;
}

export class FakeMarlin {
  /** Framed commands accepted, in order (M110 syncs included), with their line numbers. */
  readonly accepted: { n: number; command: string }[] = [];
  /** Unframed commands received (M115, M112, …). */
  readonly unframed: string[] = [];
  /** Every complete line received, raw. */
  readonly lines: string[] = [];
  /** How many lines were answered with a line error (each followed by `Resend:`). */
  lineErrors = 0;
  /** When `M112` arrived (clock time), if it did. */
  estopAt: number | undefined;
  /** Dead after a kill (M112, halt, fatal error): answers nothing. */
  dead = false;

  readonly #send: (text: string) => void;
  readonly #clock: Clock;
  readonly #options: FakeMarlinOptions;
  #last = 0;
  /** After a `stall` reaction: every line is dropped unanswered. */
  #stalled = false;
  #partial = '';
  #bannerSent = false;
  readonly #attempts = new Map<number, number>();
  readonly #timers = new Set<TimerHandle>();
  readonly #waiters = new Set<Waiter>();

  constructor(options: FakeMarlinOptions) {
    this.#options = options;
    this.#send = options.send;
    this.#clock = options.clock ?? systemClock;
  }

  /** The program as the fake received it: accepted commands without the M110 syncs. */
  get commands(): string[] {
    return this.accepted.filter((entry) => !/^M110\b/.test(entry.command)).map((entry) => entry.command);
  }

  /** Bytes from the host. */
  receive(text: string): void {
    if (!this.#bannerSent && this.#options.banner) {
      this.#bannerSent = true;
      for (const line of this.#options.banner) this.say(line);
    }
    this.#partial += text;
    let at = this.#partial.search(/[\r\n]/);
    while (at !== -1) {
      const line = this.#partial.slice(0, at).trim();
      this.#partial = this.#partial.slice(at + 1);
      if (line !== '') this.#handle(line);
      at = this.#partial.search(/[\r\n]/);
    }
    this.#notify();
  }

  /** Resolves once `check` holds (checked after every received line); rejects after `timeoutMs`. */
  until(check: () => boolean, timeoutMs = 5000, what = 'the fake Marlin to see it'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** Sends lines unprompted (noise, a `start` banner, a halt). */
  say(line: string): void {
    this.#send(`${line}\n`);
  }

  /** Cancels pending answers. */
  stop(): void {
    for (const timer of this.#timers) this.#clock.clearTimeout(timer);
    this.#timers.clear();
    this.dead = true;
  }

  #notify() {
    for (const waiter of this.#waiters) {
      if (waiter.check()) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  #handle(line: string) {
    this.lines.push(line);
    // The emergency parser acts on M112 as it arrives, whatever else is going on.
    if (/^(N\d+\s+)?M112\b/.test(line)) {
      this.estopAt = this.#clock.now();
      this.unframed.push('M112');
      if (!this.dead) this.say('Error:Printer halted. kill() called!');
      this.stop();
      return;
    }
    if (
      this.dead &&
      this.#options.takesM999 &&
      this.estopAt !== undefined &&
      /^(N\d+\s+)?M999\b/.test(line)
    ) {
      this.dead = false;
      this.#last = 0;
      this.unframed.push('M999');
      return this.#ok();
    }
    if (this.dead || this.#stalled) return;
    const framed = /^N(\d+)\s+(.*?)(?:\*(\d+))?$/.exec(line);
    if (!framed) {
      if (line.includes('*')) return this.#lineError('No Line Number with checksum');
      this.unframed.push(line);
      if (/^M115\b/.test(line)) return this.#identify();
      return this.#ok();
    }
    const n = Number(framed[1]);
    const command = (framed[2] ?? '').trim();
    const isSync = /^M110\b/.test(command);
    if (n !== this.#last + 1 && !isSync) return this.#lineError('Line Number is not Last Line Number+1');
    if (framed[3] === undefined) return this.#lineError('No Checksum with line number');
    const body = line.slice(0, line.lastIndexOf('*'));
    if (checksum(body) !== Number(framed[3])) return this.#lineError('checksum mismatch');

    const attempt = (this.#attempts.get(n) ?? 0) + 1;
    this.#attempts.set(n, attempt);
    const reaction = isSync ? undefined : this.#options.react?.({ n, command, attempt });
    switch (reaction?.kind) {
      case 'corrupt':
        return this.#lineError('checksum mismatch');
      case 'wrong-number':
        return this.#lineError('Line Number is not Last Line Number+1');
      case 'resend-other':
        this.say(`Error:checksum mismatch, Last Line: ${this.#last}`);
        this.say(`Resend: ${reaction.line}`);
        return this.say('ok');
      case 'restart':
        this.#last = 0;
        this.say('start');
        this.say('echo:Marlin 2.1.2.5');
        return this.say('echo: Last Updated: 2024-01-01 | Author: (Towpath fake)');
      case 'die':
        this.say(reaction.line);
        this.stop();
        return;
      case 'stall': {
        this.#stalled = true;
        const text = reaction.text ?? 'wait';
        const tick = () => {
          this.say(text);
          this.#later(tick, reaction.everyMs);
        };
        this.#later(tick, reaction.everyMs);
        return;
      }
    }
    this.#last = isSync ? this.#syncNumber(command) : n;
    this.accepted.push({ n, command });
    switch (reaction?.kind) {
      case 'silent':
        return;
      case 'say':
        for (const extra of reaction.lines) this.say(extra);
        return this.#ok(n);
      case 'busy': {
        const text = reaction.text ?? 'busy: processing';
        const started = this.#clock.now();
        const tick = () => {
          if (this.#clock.now() - started >= reaction.forMs) return this.#ok(n);
          this.say(text);
          this.#later(tick, reaction.everyMs);
        };
        return tick();
      }
    }
    this.#ok(n);
  }

  #syncNumber(command: string): number {
    const value = /\bN(\d+)/.exec(command.slice(4));
    return value ? Number(value[1]) : 0;
  }

  #lineError(message: string) {
    this.lineErrors++;
    this.say(`Error:${message}, Last Line: ${this.#last}`);
    this.say(`Resend: ${this.#last + 1}`);
    this.say('ok');
  }

  #identify() {
    this.say(
      `FIRMWARE_NAME:${FAKE_FIRMWARE} SOURCE_CODE_URL:github.com/MarlinFirmware/Marlin PROTOCOL_VERSION:1.0 MACHINE_TYPE:Towpath fake winder EXTRUDER_COUNT:1`,
    );
    for (const [name, value] of Object.entries(this.#options.capabilities ?? DEFAULT_CAPABILITIES)) {
      this.say(`Cap:${name}:${value}`);
    }
    this.#ok();
  }

  #ok(n?: number) {
    const text = this.#options.advancedOk ? `ok${n === undefined ? '' : ` N${n}`} P15 B3` : 'ok';
    const delay = this.#options.ackDelayMs ?? 0;
    if (delay > 0) this.#later(() => this.say(text), delay);
    else this.say(text);
  }

  #later(callback: () => void, ms: number) {
    const timer = this.#clock.setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.dead) callback();
    }, ms);
    this.#timers.add(timer);
  }
}
