// A JSON decoder that accepts exactly what Python 3.11's `json.loads` accepts and fails with its
// messages and positions (spec/winding.md §2.2): those messages are part of the contract, and
// Python accepts NaN/Infinity, which `JSON.parse` does not. Nesting is capped at 512 levels where
// Python would hit its recursion limit.
import { JsonNumber, type JsonObject, type JsonValue } from './json-value.ts';

const MAX_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

/** A decoding failure; `index` is in UTF-16 code units, converted for the message by `describe`. */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  readonly index: number;
  readonly reason: string;

  constructor(reason: string, index: number) {
    super(reason);
    this.reason = reason;
    this.index = index;
  }

  /** Python's `{msg}: line {l} column {c} (char {p})`, counting code points of `text`. */
  describe(text: string): string {
    const pos = codePointIndex(text, this.index);
    const lastLf = text.lastIndexOf('\n', this.index - 1);
    const line = countLf(text, this.index) + 1;
    const col = lastLf < 0 || this.index === 0 ? pos + 1 : pos - codePointIndex(text, lastLf);
    return `${this.reason}: line ${line} column ${col} (char ${pos})`;
  }
}

function codePointIndex(text: string, unitIndex: number): number {
  let pairs = 0;
  for (let i = 0; i < unitIndex - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return unitIndex - pairs;
}

function countLf(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** JSON's one-letter escapes (RFC 8259 §7); the machine door's streaming body decoder shares them. */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** Where a value sits in the text, in UTF-16 code units, end exclusive. */
export interface JsonSpan {
  readonly from: number;
  readonly to: number;
}

/** An object member: its key (quotes included) and its value. */
export interface JsonMemberSpan extends JsonSpan {
  readonly keyFrom: number;
  readonly keyTo: number;
}

/**
 * Where every value of a decoded document sits, for pointing at the token a schema error is about.
 * A duplicate key's span is its last occurrence, the one whose value is kept.
 */
export class JsonSpans {
  root: JsonSpan = { from: 0, to: 0 };
  readonly members = new WeakMap<JsonObject, Map<string, JsonMemberSpan>>();
  readonly elements = new WeakMap<JsonValue[], JsonSpan[]>();
}

class Decoder {
  readonly #s: string;
  readonly #n: number;
  readonly #spans: JsonSpans | null;
  // End of the value last scanned; scanners return values and leave their end here.
  #end = 0;

  constructor(text: string, spans: JsonSpans | null) {
    this.#s = text;
    this.#n = text.length;
    this.#spans = spans;
  }

  decode(): JsonValue {
    const s = this.#s;
    if (s.charCodeAt(0) === 0xfeff)
      throw new JsonSyntaxError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    const start = this.#skip(0);
    const value = this.#value(start, 0);
    if (this.#spans) this.#spans.root = { from: start, to: this.#end };
    const end = this.#skip(this.#end);
    if (end !== this.#n) throw new JsonSyntaxError('Extra data', end);
    return value;
  }

  #skip(i: number): number {
    const s = this.#s;
    while (i < this.#n && isWhitespace(s.charCodeAt(i))) i++;
    return i;
  }

  #value(i: number, depth: number): JsonValue {
    const s = this.#s;
    if (i >= this.#n) throw new JsonSyntaxError('Expecting value', i);
    switch (s.charCodeAt(i)) {
      case QUOTE:
        return this.#string(i + 1);
      case 0x7b: // {
        if (depth >= MAX_DEPTH) throw new JsonSyntaxError('Maximum nesting depth exceeded', i);
        return this.#object(i + 1, depth + 1);
      case 0x5b: // [
        if (depth >= MAX_DEPTH) throw new JsonSyntaxError('Maximum nesting depth exceeded', i);
        return this.#array(i + 1, depth + 1);
      case 0x6e: // n
        if (s.startsWith('null', i)) return this.#literal(i + 4, null);
        break;
      case 0x74: // t
        if (s.startsWith('true', i)) return this.#literal(i + 4, true);
        break;
      case 0x66: // f
        if (s.startsWith('false', i)) return this.#literal(i + 5, false);
        break;
      case 0x4e: // N
        if (s.startsWith('NaN', i)) return this.#literal(i + 3, new JsonNumber(Number.NaN, null));
        break;
      case 0x49: // I
        if (s.startsWith('Infinity', i))
          return this.#literal(i + 8, new JsonNumber(Number.POSITIVE_INFINITY, null));
        break;
      case MINUS:
        if (s.startsWith('-Infinity', i))
          return this.#literal(i + 9, new JsonNumber(Number.NEGATIVE_INFINITY, null));
        break;
    }
    return this.#number(i);
  }

  #literal<T>(end: number, value: T): T {
    this.#end = end;
    return value;
  }

  // Longest match of -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, each optional part all or nothing.
  #number(start: number): JsonNumber {
    const s = this.#s;
    const n = this.#n;
    let i = start;
    if (s.charCodeAt(i) === MINUS) i++;
    const first = i < n ? s.charCodeAt(i) : -1;
    if (first === 0x30) {
      i++;
    } else if (first >= 0x31 && first <= 0x39) {
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    } else {
      throw new JsonSyntaxError('Expecting value', start);
    }
    let isFloat = false;
    if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      let j = i + 1;
      const sign = s.charCodeAt(j);
      if (sign === 0x2b || sign === MINUS) j++;
      if (isDigit(s.charCodeAt(j))) {
        isFloat = true;
        j++;
        while (j < n && isDigit(s.charCodeAt(j))) j++;
        i = j;
      }
    }
    this.#end = i;
    const token = s.slice(start, i);
    if (isFloat) return new JsonNumber(Number(token), null);
    // Python's int has no negative zero: the token `-0` is +0.
    const digits = token === '-0' ? '0' : token;
    return new JsonNumber(Number(digits), digits);
  }

  // `begin` is just after the opening quote; mirrors CPython's scanstring (strict mode).
  #string(begin: number): string {
    const s = this.#s;
    const n = this.#n;
    let chunks: string[] | null = null;
    let end = begin;
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < n; next++) {
        c = s.charCodeAt(next);
        if (c === QUOTE || c === BACKSLASH) break;
        if (c <= 0x1f) throw new JsonSyntaxError('Invalid control character at', next);
      }
      if (next >= n) throw new JsonSyntaxError('Unterminated string starting at', begin - 1);
      if (c === QUOTE) {
        this.#end = next + 1;
        if (chunks === null) return s.slice(begin, next);
        chunks.push(s.slice(end, next));
        return chunks.join('');
      }
      chunks ??= [];
      if (next > end) chunks.push(s.slice(end, next));
      next++;
      if (next === n) throw new JsonSyntaxError('Unterminated string starting at', begin - 1);
      const letter = s[next] as string;
      if (letter !== 'u') {
        const decoded = SIMPLE_ESCAPES[letter];
        if (decoded === undefined) throw new JsonSyntaxError('Invalid \\escape', next - 1);
        chunks.push(decoded);
        end = next + 1;
        continue;
      }
      // Like CPython, demand room for the four digits and at least one character after them.
      const uAt = next;
      end = next + 5;
      if (end >= n) throw new JsonSyntaxError('Invalid \\uXXXX escape', uAt);
      const unit = this.#hex4(uAt + 1, uAt);
      chunks.push(String.fromCharCode(unit));
      // A high surrogate escape followed by a low one is one pair; otherwise both are kept alone,
      // which a JS string represents the same way once the units sit side by side.
      if (unit >= 0xd800 && unit <= 0xdbff && end + 6 < n && s.charCodeAt(end) === BACKSLASH) {
        if (s.charCodeAt(end + 1) === 0x75) {
          const low = this.#hex4(end + 2, end + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            chunks.push(String.fromCharCode(low));
            end += 6;
          }
        }
      }
    }
  }

  #hex4(at: number, uAt: number): number {
    const s = this.#s;
    let value = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexValue(s.charCodeAt(at + k));
      if (h < 0) throw new JsonSyntaxError('Invalid \\uXXXX escape', uAt);
      value = value * 16 + h;
    }
    return value;
  }

  #object(start: number, depth: number): JsonObject {
    const s = this.#s;
    const n = this.#n;
    const result: JsonObject = new Map();
    const spans = this.#spans && new Map<string, JsonMemberSpan>();
    if (spans) this.#spans?.members.set(result, spans);
    let i = this.#skip(start);
    if (i < n && s.charCodeAt(i) === 0x7d) {
      this.#end = i + 1;
      return result;
    }
    for (;;) {
      if (i >= n || s.charCodeAt(i) !== QUOTE)
        throw new JsonSyntaxError('Expecting property name enclosed in double quotes', i);
      const keyFrom = i;
      const key = this.#string(i + 1);
      const keyTo = this.#end;
      i = this.#skip(keyTo);
      if (i >= n || s.charCodeAt(i) !== 0x3a) throw new JsonSyntaxError("Expecting ':' delimiter", i);
      const from = this.#skip(i + 1);
      const value = this.#value(from, depth);
      result.set(key, value);
      spans?.set(key, { keyFrom, keyTo, from, to: this.#end });
      i = this.#skip(this.#end);
      if (i < n && s.charCodeAt(i) === 0x7d) {
        this.#end = i + 1;
        return result;
      }
      if (i >= n || s.charCodeAt(i) !== 0x2c) throw new JsonSyntaxError("Expecting ',' delimiter", i);
      i = this.#skip(i + 1);
    }
  }

  #array(start: number, depth: number): JsonValue[] {
    const s = this.#s;
    const n = this.#n;
    const result: JsonValue[] = [];
    const spans: JsonSpan[] | null = this.#spans && [];
    if (spans) this.#spans?.elements.set(result, spans);
    let i = this.#skip(start);
    if (i < n && s.charCodeAt(i) === 0x5d) {
      this.#end = i + 1;
      return result;
    }
    for (;;) {
      result.push(this.#value(i, depth));
      spans?.push({ from: i, to: this.#end });
      i = this.#skip(this.#end);
      if (i < n && s.charCodeAt(i) === 0x5d) {
        this.#end = i + 1;
        return result;
      }
      if (i >= n || s.charCodeAt(i) !== 0x2c) throw new JsonSyntaxError("Expecting ',' delimiter", i);
      i = this.#skip(i + 1);
    }
  }
}

/**
 * Decodes `text` like Python's `json.loads`; throws `JsonSyntaxError` on the first problem. Given
 * `spans`, also records where each value sits (the source editor's diagnostics need it).
 */
export function decodeJson(text: string, spans: JsonSpans | null = null): JsonValue {
  return new Decoder(text, spans).decode();
}
