// The G-code simulator of spec §5 (FiberPath 0.10's nominal model) over a byte stream.
//
// Error precedence follows a whole-program reading of §5 although the text arrives in chunks:
// an empty program beats everything, then the header, then the first failing line. Two facts can
// be settled late and change what an earlier line means:
// - the diameter D (the header may follow motion lines): motion before the header is kept as
//   (line, dx, da, feed) records — positions never depend on D — and replayed in order once D is
//   known, so the sums are added in the same order as a single pass would add them;
// - the axis format (detected on the first G0/G1/G92 line naming A, B, Y or Z): before detection
//   only G28 can name those letters, so each format keeps its own first error ("slot") and the
//   detected format picks one.
import { SimulationError } from '../errors.ts';
import { sq } from '../numeric.ts';
import { utf8Slices } from '../text/utf8.ts';
import {
  allDigits,
  DecimalScanner,
  decodeText,
  isWhitespaceAt,
  skipWhitespace,
  startsWithAscii,
  trimEnd,
  whitespaceAt,
  wordEnd,
} from './bytes.ts';
import { headerDiameter, PARAMETERS_PREFIX } from './header.ts';
import { type LineSink, LineSplitter } from './lines.ts';
import type { SimulationSummary } from './types.ts';

const UNKNOWN = 0;
const XAB = 1;
const XYZ = 2;

const LOWER_A = 0x61;
const LOWER_B = 0x62;
const LOWER_F = 0x66;
const LOWER_P = 0x70;
const LOWER_S = 0x73;
const LOWER_X = 0x78;
const LOWER_Y = 0x79;
const LOWER_Z = 0x7a;

const MOTION = 1;
const SET_POSITION = 2;
const DWELL = 3;
const HOME = 4;
const NO_EFFECT = 5;
const UNSUPPORTED = 6;
const INCH_UNITS = 7;
const RELATIVE = 8;
const INVERSE_TIME = 9;

/** Kind of the command word [start, end): G-codes by their exact spelling, any M<digits>. */
function commandKind(buf: Uint8Array, start: number, end: number): number {
  const letter = (buf[start] as number) | 0x20;
  const length = end - start;
  if (letter === 0x6d) {
    // M-codes are not parsed further: `M117Hello` is a Marlin idiom.
    return length >= 2 && allDigits(buf, start + 1, start + 2) ? NO_EFFECT : UNSUPPORTED;
  }
  if (letter !== 0x67 || length < 2 || length > 3 || !allDigits(buf, start + 1, end)) return UNSUPPORTED;
  const d1 = (buf[start + 1] as number) - 48;
  if (length === 2) {
    if (d1 === 0 || d1 === 1) return MOTION;
    return d1 === 4 ? DWELL : UNSUPPORTED;
  }
  const code = d1 * 10 + (buf[start + 2] as number) - 48;
  switch (code) {
    case 0:
    case 1:
      return MOTION;
    case 4:
      return DWELL;
    case 92:
      return SET_POSITION;
    case 28:
      return HOME;
    case 21:
    case 90:
    case 94:
      return NO_EFFECT;
    case 20:
      return INCH_UNITS;
    case 91:
      return RELATIVE;
    case 93:
      return INVERSE_TIME;
    default:
      return UNSUPPORTED;
  }
}

/**
 * Receives the carriage/mandrel path as the simulator reads it (the preview builds geometry from
 * it). Coordinates are logical (as written, G92 shifts included); `command` is the 1-based index
 * of the line among the lines that are not blank and not only a comment (spec §6.1 numbering).
 */
export interface MotionObserver {
  /** The header's diameter, once known. */
  diameter(value: number): void;
  /** A line that is only a comment; [start, end) is its trimmed text starting with `;`. */
  comment(buf: Uint8Array, start: number, end: number): void;
  /** A G0/G1 that changed the carriage or mandrel coordinate. */
  move(command: number, x: number, a: number): void;
  /** G92: the logical coordinates changed without motion. */
  setPosition(x: number, a: number): void;
  /** G28: the named axes went to their zero (and the logical coordinates are 0 there). */
  home(command: number, x: boolean, a: boolean): void;
}

export interface SimulatorOptions {
  /**
   * A program without the `; Parameters` header (another CAM's, a hand-written one) is not refused:
   * the mandrel is fitted to the path instead (see fittedDiameter). For a preview only: §5 refuses
   * such a program, and the simulate route keeps doing so.
   */
  fitMandrel?: boolean;
}

/**
 * The mandrel diameter a program without a header is drawn on: a quarter of the carriage's travel
 * (the proportions of a typical wound part), at least 10 mm; 100 mm when the carriage never moves.
 */
export function fittedMandrelDiameter(xMin: number, xMax: number): number {
  const travel = xMax - xMin;
  if (!(travel > 0) || !Number.isFinite(travel)) return 100;
  return Math.max(10, Math.round(travel / 4));
}

/** Streaming simulator: `push` chunks of UTF-8 bytes in order, then `finish`. */
export class GcodeSimulator implements LineSink {
  readonly #splitter: LineSplitter;
  readonly #observer: MotionObserver | null;
  readonly #scanner = new DecimalScanner();

  #lineNo = 0;
  #commands = 0;
  #sendable = 0;

  #headerKnown = false;
  #c0 = 0;
  readonly #fitMandrel: boolean;
  /** The diameter fitted to a program without a header; null while (or when) the header gives it. */
  #fitted: number | null = null;
  /** The carriage's logical range so far, for fitting a mandrel. */
  #xMin = 0;
  #xMax = 0;

  #format = UNKNOWN;
  #mandrelLetter = LOWER_A;
  #headLetter = LOWER_B;

  #x = 0;
  #a = 0;
  /** The head's coordinate: it takes no time in the §5 model, but a resume must know where it is. */
  #b = 0;
  #feed = 0;
  #time = 0;
  #distance = 0;
  #moves = 0;

  /** First error line/message per format (index XAB, XYZ); 0 = none. */
  readonly #errorLine = [0, 0, 0];
  readonly #errorMessage = ['', '', ''];
  /** Every format that can still be detected has an error: later lines change nothing. */
  #halted = false;
  #fatal: SimulationError | null = null;
  /** Message of the last word error found by `#homeAxes`. */
  #wordError = '';
  #finished = false;

  /** Motion and dwell before the header: [line, dx, da, feed] or [0, seconds, 0, 0]. */
  #deferred = new Float64Array(0);
  #deferredLength = 0;

  constructor(observer: MotionObserver | null = null, options: SimulatorOptions = {}) {
    this.#splitter = new LineSplitter(this);
    this.#observer = observer;
    this.#fitMandrel = options.fitMandrel === true;
  }

  /** With `fitMandrel`, after `finish`: the diameter assumed for a program without a header. */
  get fittedDiameter(): number | null {
    return this.#fitted;
  }

  /** Lines read so far that are not blank and not only a comment (spec §6.1 commands). */
  get commandLineCount(): number {
    return this.#sendable;
  }

  /** Estimated machine time of the lines read so far (what `finish` reports for the whole program). */
  get elapsedSeconds(): number {
    return this.#time;
  }

  /**
   * Where the program has left the machine after the lines read so far (logical coordinates), with
   * the modal feed and the §5 distance: what a resume needs to know about a point in the program.
   */
  get machine(): { line: number; x: number; a: number; b: number; feed: number; distanceMm: number } {
    return {
      line: this.#lineNo,
      x: this.#x,
      a: this.#a,
      b: this.#b,
      feed: this.#feed,
      distanceMm: this.#distance,
    };
  }

  /** Feeds the next bytes. Throws the final SimulationError as soon as the outcome is certain. */
  push(chunk: Uint8Array): void {
    if (this.#fatal !== null) throw this.#fatal;
    if (this.#finished) throw new Error('GcodeSimulator: push after finish');
    this.#splitter.push(chunk);
  }

  finish(): SimulationSummary {
    if (this.#fatal !== null) throw this.#fatal;
    if (this.#finished) throw new Error('GcodeSimulator: finish called twice');
    this.#splitter.finish();
    this.#finished = true;
    if (this.#commands === 0) throw this.#die('Program is empty');
    if (!this.#headerKnown && this.#fitMandrel) {
      this.#fitted = fittedMandrelDiameter(this.#xMin, this.#xMax);
      this.#knowDiameter(this.#fitted);
    }
    if (!this.#headerKnown) throw this.#die('Unable to locate Parameters header in program');
    const format = this.#format === UNKNOWN ? XAB : this.#format;
    if (this.#errorLine[format] !== 0) throw this.#die(this.#errorMessage[format] as string);
    return {
      commands: this.#commands,
      moves: this.#moves,
      estimated_time_s: this.#time,
      total_distance_mm: this.#distance,
      tow_length_mm: this.#distance,
      average_feed_rate_mmpm: this.#time > 0 ? (this.#distance / this.#time) * 60 : 0,
    };
  }

  /** @internal LineSink: one line of the program. */
  line(buf: Uint8Array, start: number, end: number): void {
    this.#lineNo++;
    let i = start;
    while (true) {
      if (i === end) return;
      const b = buf[i] as number;
      if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) {
        i++;
        continue;
      }
      if (b < 0x80) break;
      const w = whitespaceAt(buf, i, end);
      if (w === 0) break;
      i += w;
    }
    this.#commands++;
    let semi = i;
    while (semi < end && buf[semi] !== 0x3b) semi++;
    if (semi === i) {
      this.#comment(buf, i, trimEnd(buf, i, end));
      return;
    }
    this.#sendable++;
    let codeEnd = trimEnd(buf, i, semi);
    // A trailing checksum `*<digits>` goes first, then a leading `N<digits>` word.
    const last = (buf[codeEnd - 1] as number) - 48;
    if (last >= 0 && last <= 9) {
      let k = codeEnd - 1;
      while (k > i && (buf[k - 1] as number) >= 0x30 && (buf[k - 1] as number) <= 0x39) k--;
      if (k > i && buf[k - 1] === 0x2a) {
        codeEnd = trimEnd(buf, i, k - 1);
        if (codeEnd === i) return;
      }
    }
    let wordStart = i;
    let commandEnd = wordEnd(buf, i, codeEnd);
    if (((buf[i] as number) | 0x20) === 0x6e && allDigits(buf, i + 1, commandEnd)) {
      wordStart = skipWhitespace(buf, commandEnd, codeEnd);
      if (wordStart === codeEnd) return;
      commandEnd = wordEnd(buf, wordStart, codeEnd);
    }
    const kind = commandKind(buf, wordStart, commandEnd);
    if (this.#halted) {
      if (this.#format === UNKNOWN && (kind === MOTION || kind === SET_POSITION)) {
        this.#detect(buf, commandEnd, codeEnd);
      }
      return;
    }
    switch (kind) {
      case MOTION:
        this.#motion(buf, commandEnd, codeEnd);
        return;
      case SET_POSITION:
        this.#setPosition(buf, commandEnd, codeEnd);
        return;
      case DWELL:
        this.#dwell(buf, commandEnd, codeEnd);
        return;
      case HOME:
        this.#home(buf, commandEnd, codeEnd);
        return;
      case NO_EFFECT:
        return;
      case INCH_UNITS:
        this.#fail(
          `Line ${this.#lineNo}: G20 (inch units) is not supported; programs must use millimetres (G21)`,
        );
        return;
      case RELATIVE:
        this.#fail(
          `Line ${this.#lineNo}: G91 (relative positioning) is not supported; programs must use absolute positioning (G90)`,
        );
        return;
      case INVERSE_TIME:
        this.#fail(
          `Line ${this.#lineNo}: G93 (inverse-time feed) is not supported; programs must use units per minute (G94)`,
        );
        return;
      default:
        this.#fail(`Line ${this.#lineNo}: unsupported command '${decodeText(buf, wordStart, commandEnd)}'`);
    }
  }

  #comment(buf: Uint8Array, start: number, end: number): void {
    if (!this.#headerKnown && startsWithAscii(buf, start, end, PARAMETERS_PREFIX)) {
      this.#header(decodeText(buf, start + PARAMETERS_PREFIX.length, end));
      return;
    }
    if (this.#observer !== null) this.#observer.comment(buf, start, end);
  }

  #header(json: string): void {
    const diameter = headerDiameter(json);
    if (diameter === null) {
      throw this.#die(
        `Line ${this.#lineNo}: invalid Parameters header (expected JSON with a positive mandrel.diameter)`,
      );
    }
    this.#knowDiameter(diameter);
  }

  #knowDiameter(diameter: number): void {
    this.#headerKnown = true;
    this.#c0 = Math.PI * diameter;
    this.#observer?.diameter(diameter);
    this.#replayDeferred();
    this.#settle();
  }

  /** G0/G1: F first, then the axes; the motion step of §5 with the head excluded. */
  #motion(buf: Uint8Array, p: number, end: number): void {
    if (this.#format === UNKNOWN) {
      this.#detect(buf, p, end);
      if (this.#halted) return;
    }
    const mandrel = this.#mandrelLetter;
    const head = this.#headLetter;
    const scanner = this.#scanner;
    let x = this.#x;
    let a = this.#a;
    let b = this.#b;
    while (true) {
      p = skipWhitespace(buf, p, end);
      if (p === end) break;
      const letter = (buf[p] as number) | 0x20;
      const value = scanner.read(buf, p + 1, end);
      const next = scanner.end;
      const bad = Number.isNaN(value) || (next !== end && !isWhitespaceAt(buf, next, end));
      if (letter !== LOWER_X && letter !== mandrel && letter !== LOWER_F && letter !== head) {
        this.#unknownLetter(buf, p, end);
        return;
      }
      if (bad) {
        this.#invalidNumber(buf, p, end);
        return;
      }
      if (letter === LOWER_X) {
        x = value;
      } else if (letter === mandrel) {
        a = value;
      } else if (letter === head) {
        b = value;
      } else if (letter === LOWER_F) {
        if (!(value > 0)) {
          this.#fail(`Line ${this.#lineNo}: feed rate must be positive`);
          return;
        }
        this.#feed = value;
      }
      p = next;
    }
    const dx = x - this.#x;
    const da = a - this.#a;
    this.#x = x;
    this.#a = a;
    this.#b = b;
    if (dx === 0 && da === 0) return;
    if (this.#headerKnown) {
      const d = Math.sqrt(sq(dx) + sq((da / 360) * this.#c0));
      if (d > 0) {
        if (this.#feed === 0) {
          this.#fail(`Line ${this.#lineNo}: feed rate must be set before moving the machine`);
          return;
        }
        this.#time += (d / this.#feed) * 60;
        this.#distance += d;
        this.#moves += 1;
      }
    } else {
      this.#defer(this.#lineNo, dx, da, this.#feed);
      if (x < this.#xMin) this.#xMin = x;
      else if (x > this.#xMax) this.#xMax = x;
    }
    if (this.#observer !== null) this.#observer.move(this.#sendable, x, a);
  }

  /** G92: axis words set the position; F is checked as a number and otherwise ignored. */
  #setPosition(buf: Uint8Array, p: number, end: number): void {
    if (this.#format === UNKNOWN) {
      this.#detect(buf, p, end);
      if (this.#halted) return;
    }
    let x = this.#x;
    let a = this.#a;
    while (true) {
      p = skipWhitespace(buf, p, end);
      if (p === end) break;
      const letter = (buf[p] as number) | 0x20;
      const value = this.#scanner.read(buf, p + 1, end);
      const next = this.#scanner.end;
      const bad = Number.isNaN(value) || (next !== end && !isWhitespaceAt(buf, next, end));
      if (
        letter !== LOWER_X &&
        letter !== this.#mandrelLetter &&
        letter !== this.#headLetter &&
        letter !== LOWER_F
      ) {
        this.#unknownLetter(buf, p, end);
        return;
      }
      if (bad) {
        this.#invalidNumber(buf, p, end);
        return;
      }
      if (letter === LOWER_X) x = value;
      else if (letter === this.#mandrelLetter) a = value;
      else if (letter === this.#headLetter) this.#b = value;
      p = next;
    }
    this.#x = x;
    this.#a = a;
    if (this.#observer !== null) this.#observer.setPosition(x, a);
  }

  /**
   * G4: `S<s>` or `P<ms>` (S wins when both are given, as in Marlin); other words are ignored and
   * a dwell that is not positive adds nothing.
   */
  #dwell(buf: Uint8Array, p: number, end: number): void {
    let seconds = 0;
    let haveSeconds = false;
    while (true) {
      p = skipWhitespace(buf, p, end);
      if (p === end) break;
      const letter = (buf[p] as number) | 0x20;
      if (letter !== LOWER_P && letter !== LOWER_S) {
        p = wordEnd(buf, p, end);
        continue;
      }
      const value = this.#scanner.read(buf, p + 1, end);
      const next = this.#scanner.end;
      if (Number.isNaN(value) || (next !== end && !isWhitespaceAt(buf, next, end))) {
        this.#invalidNumber(buf, p, end);
        return;
      }
      if (letter === LOWER_S) {
        seconds = value;
        haveSeconds = true;
      } else if (!haveSeconds) {
        seconds = value / 1000;
      }
      p = next;
    }
    if (!(seconds > 0)) return;
    if (this.#headerKnown) this.#time += seconds;
    else this.#defer(0, seconds, 0, 0);
  }

  /** G28: named axes (all when none is named) go to 0; no distance and no time. */
  #home(buf: Uint8Array, p: number, end: number): void {
    let named: number;
    if (this.#format !== UNKNOWN) {
      named = this.#homeAxes(buf, p, end, this.#mandrelLetter, this.#headLetter);
      if (named < 0) {
        this.#fail(this.#wordError);
        return;
      }
    } else {
      // Before detection the letters' meaning is open: judge the line under both formats.
      const xab = this.#homeAxes(buf, p, end, LOWER_A, LOWER_B);
      const xabError = this.#wordError;
      const xyz = this.#homeAxes(buf, p, end, LOWER_Y, LOWER_Z);
      if (xab < 0) this.#setError(XAB, this.#lineNo, xabError);
      if (xyz < 0) this.#setError(XYZ, this.#lineNo, this.#wordError);
      this.#settle();
      if (this.#halted) return;
      named = xab >= 0 ? xab : xyz;
    }
    const homeX = named === 0 || (named & 1) !== 0;
    const homeA = named === 0 || (named & 2) !== 0;
    if (homeX) this.#x = 0;
    if (homeA) this.#a = 0;
    if (named === 0 || (named & 4) !== 0) this.#b = 0;
    if (this.#observer !== null) this.#observer.home(this.#sendable, homeX, homeA);
  }

  /** Axes named by G28 words as bits (1 carriage, 2 mandrel, 4 head), or −1 with `#wordError`. */
  #homeAxes(buf: Uint8Array, p: number, end: number, mandrel: number, head: number): number {
    let named = 0;
    while (true) {
      p = skipWhitespace(buf, p, end);
      if (p === end) return named;
      const letter = (buf[p] as number) | 0x20;
      if (letter === LOWER_X) named |= 1;
      else if (letter === mandrel) named |= 2;
      else if (letter === head) named |= 4;
      else if (letter !== LOWER_F) {
        this.#wordError = this.#unknownLetterMessage(buf, p, end);
        return -1;
      }
      // A homing word may carry no value (`G28 X`).
      if (p + 1 < end && !isWhitespaceAt(buf, p + 1, end)) {
        const value = this.#scanner.read(buf, p + 1, end);
        const next = this.#scanner.end;
        if (Number.isNaN(value) || (next !== end && !isWhitespaceAt(buf, next, end))) {
          this.#wordError = this.#invalidNumberMessage(buf, p, end);
          return -1;
        }
      }
      p = wordEnd(buf, p, end);
    }
  }

  /** Step 3: the first G0/G1/G92 line naming A, B, Y or Z decides the axis letters. */
  #detect(buf: Uint8Array, p: number, end: number): void {
    let ab = false;
    let yz = false;
    while (true) {
      p = skipWhitespace(buf, p, end);
      if (p === end) break;
      const letter = (buf[p] as number) | 0x20;
      if (letter === LOWER_A || letter === LOWER_B) ab = true;
      else if (letter === LOWER_Y || letter === LOWER_Z) yz = true;
      p = wordEnd(buf, p, end);
    }
    if (!ab && !yz) return;
    this.#format = ab ? XAB : XYZ;
    this.#mandrelLetter = ab ? LOWER_A : LOWER_Y;
    this.#headLetter = ab ? LOWER_B : LOWER_Z;
    this.#settle();
  }

  #defer(line: number, first: number, second: number, third: number): void {
    if (this.#deferredLength + 4 > this.#deferred.length) {
      const grown = new Float64Array(Math.max(64, this.#deferred.length * 2));
      grown.set(this.#deferred);
      this.#deferred = grown;
    }
    const d = this.#deferred;
    const k = this.#deferredLength;
    d[k] = line;
    d[k + 1] = first;
    d[k + 2] = second;
    d[k + 3] = third;
    this.#deferredLength = k + 4;
  }

  #replayDeferred(): void {
    const d = this.#deferred;
    for (let k = 0; k < this.#deferredLength; k += 4) {
      const line = d[k] as number;
      if (line === 0) {
        this.#time += d[k + 1] as number;
        continue;
      }
      const dx = d[k + 1] as number;
      const da = d[k + 2] as number;
      const feed = d[k + 3] as number;
      const distance = Math.sqrt(sq(dx) + sq((da / 360) * this.#c0));
      if (distance > 0) {
        if (feed === 0) {
          const message = `Line ${line}: feed rate must be set before moving the machine`;
          this.#setError(XAB, line, message);
          this.#setError(XYZ, line, message);
          break;
        }
        this.#time += (distance / feed) * 60;
        this.#distance += distance;
        this.#moves += 1;
      }
    }
    this.#deferred = new Float64Array(0);
    this.#deferredLength = 0;
  }

  /** Keeps the earliest error per format. */
  #setError(format: number, line: number, message: string): void {
    const current = this.#errorLine[format] as number;
    if (current === 0 || line < current) {
      this.#errorLine[format] = line;
      this.#errorMessage[format] = message;
    }
  }

  /** An error on the current line, whatever the format. */
  #fail(message: string): void {
    if (this.#format !== UNKNOWN) {
      this.#setError(this.#format, this.#lineNo, message);
    } else {
      this.#setError(XAB, this.#lineNo, message);
      this.#setError(XYZ, this.#lineNo, message);
    }
    this.#settle();
  }

  /** Recomputes `#halted` and throws once the result cannot change any more. */
  #settle(): void {
    const e = this.#errorLine;
    if (this.#format !== UNKNOWN) {
      this.#halted = e[this.#format] !== 0;
      if (this.#halted && this.#headerKnown) throw this.#die(this.#errorMessage[this.#format] as string);
      return;
    }
    this.#halted = e[XAB] !== 0 && e[XYZ] !== 0;
    if (this.#halted && this.#headerKnown && this.#errorMessage[XAB] === this.#errorMessage[XYZ]) {
      throw this.#die(this.#errorMessage[XAB] as string);
    }
  }

  #die(message: string): SimulationError {
    this.#fatal = new SimulationError(message);
    return this.#fatal;
  }

  #unknownLetterMessage(buf: Uint8Array, p: number, end: number): string {
    const word = decodeText(buf, p, wordEnd(buf, p, end));
    const letter = String.fromCodePoint(word.codePointAt(0) ?? 0xfffd);
    return `Line ${this.#lineNo}: unknown axis letter '${letter}' in '${word}'`;
  }

  #invalidNumberMessage(buf: Uint8Array, p: number, end: number): string {
    return `Line ${this.#lineNo}: invalid number in '${decodeText(buf, p, wordEnd(buf, p, end))}'`;
  }

  #unknownLetter(buf: Uint8Array, p: number, end: number): void {
    this.#fail(this.#unknownLetterMessage(buf, p, end));
  }

  #invalidNumber(buf: Uint8Array, p: number, end: number): void {
    this.#fail(this.#invalidNumberMessage(buf, p, end));
  }
}

/** Simulates a whole program given as bytes (UTF-8) or text. */
export function simulateGcode(input: Uint8Array | string): SimulationSummary {
  const simulator = new GcodeSimulator();
  if (typeof input === 'string') {
    for (const slice of utf8Slices(input)) simulator.push(slice);
  } else {
    simulator.push(input);
  }
  return simulator.finish();
}
