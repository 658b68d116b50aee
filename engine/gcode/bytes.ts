// Byte-level helpers for the G-code reader: the White_Space set W of spec §2.5 on UTF-8 bytes and
// exact decimal parsing without building a string per word.

/**
 * Byte length of the W character that starts at `i` (0 when there is none). Multi-byte members
 * are U+0085, U+00A0 (C2 xx), U+1680 (E1 9A 80), U+2000–U+200A, U+2028, U+2029, U+202F
 * (E2 80 xx), U+205F (E2 81 9F) and U+3000 (E3 80 80).
 */
export function whitespaceAt(buf: Uint8Array, i: number, end: number): number {
  const b = buf[i] as number;
  if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return 1;
  if (b < 0xc2) return 0;
  if (b === 0xc2) {
    if (i + 1 >= end) return 0;
    const b1 = buf[i + 1];
    return b1 === 0x85 || b1 === 0xa0 ? 2 : 0;
  }
  if (i + 2 >= end) return 0;
  const b1 = buf[i + 1] as number;
  const b2 = buf[i + 2] as number;
  if (b === 0xe2) {
    if (b1 === 0x80) return (b2 >= 0x80 && b2 <= 0x8a) || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf ? 3 : 0;
    return b1 === 0x81 && b2 === 0x9f ? 3 : 0;
  }
  if (b === 0xe1) return b1 === 0x9a && b2 === 0x80 ? 3 : 0;
  if (b === 0xe3) return b1 === 0x80 && b2 === 0x80 ? 3 : 0;
  return 0;
}

/**
 * Byte length of the W character that ends just before `j` (0 when there is none). In valid
 * UTF-8 a lead byte is never a continuation byte, so matching the tail is unambiguous.
 */
export function whitespaceBefore(buf: Uint8Array, start: number, j: number): number {
  const b = buf[j - 1] as number;
  if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return 1;
  if (b < 0x80) return 0;
  if ((b === 0x85 || b === 0xa0) && j - 2 >= start && buf[j - 2] === 0xc2) return 2;
  if (j - 3 < start) return 0;
  return whitespaceAt(buf, j - 3, j) === 3 ? 3 : 0;
}

/** True when a W character starts at `i` (`i < end`). */
export function isWhitespaceAt(buf: Uint8Array, i: number, end: number): boolean {
  const b = buf[i] as number;
  if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return true;
  return b >= 0x80 && whitespaceAt(buf, i, end) !== 0;
}

/** First offset in [i, end) that does not start a W character (or `end`). */
export function skipWhitespace(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const b = buf[i] as number;
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) {
      i++;
    } else {
      if (b < 0x80) return i;
      const w = whitespaceAt(buf, i, end);
      if (w === 0) return i;
      i += w;
    }
  }
  return i;
}

/** `end` moved back over trailing W characters, never below `start`. */
export function trimEnd(buf: Uint8Array, start: number, end: number): number {
  while (end > start) {
    const w = whitespaceBefore(buf, start, end);
    if (w === 0) return end;
    end -= w;
  }
  return end;
}

/** End of the word starting at `i`: the first W character at or after `i`, or `end`. */
export function wordEnd(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const b = buf[i] as number;
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) return i;
    if (b >= 0x80 && whitespaceAt(buf, i, end) !== 0) return i;
    i++;
  }
  return i;
}

/** True when [start, end) is non-empty and all ASCII digits. */
export function allDigits(buf: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return false;
  for (let i = start; i < end; i++) {
    const d = (buf[i] as number) - 48;
    if (d < 0 || d > 9) return false;
  }
  return true;
}

/** True when the bytes at `start` spell `ascii` and fit before `end`. */
export function startsWithAscii(buf: Uint8Array, start: number, end: number, ascii: string): boolean {
  if (end - start < ascii.length) return false;
  for (let k = 0; k < ascii.length; k++) {
    if (buf[start + k] !== ascii.charCodeAt(k)) return false;
  }
  return true;
}

const decoder = new TextDecoder('utf-8');

/** The text of [start, end): only for messages and the rare lines (header, layer comments). */
export function decodeText(buf: Uint8Array, start: number, end: number): string {
  return decoder.decode(buf.subarray(start, end));
}

// 10^0 … 10^22 are exact doubles, so `m / POW10[k]` with an exact m is correctly rounded.
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];
const EXACT_INTEGER_LIMIT = 2 ** 53;

/**
 * Reads the longest prefix matching `[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)` and returns the value
 * `Number(text)` gives for it (NaN when no digit was read). `end` is left just past that prefix so
 * the caller can check that the word ends there.
 */
export class DecimalScanner {
  end = 0;

  read(buf: Uint8Array, start: number, limit: number): number {
    let i = start;
    const sign = i < limit ? buf[i] : 0;
    const negative = sign === 0x2d;
    if (negative || sign === 0x2b) i++;
    const digitsStart = i;
    let m = 0;
    let digits = 0;
    let fraction = 0;
    while (i < limit) {
      const d = (buf[i] as number) - 48;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      digits++;
      i++;
    }
    if (i < limit && buf[i] === 0x2e) {
      i++;
      while (i < limit) {
        const d = (buf[i] as number) - 48;
        if (d < 0 || d > 9) break;
        m = m * 10 + d;
        digits++;
        fraction++;
        i++;
      }
    }
    this.end = i;
    if (digits === 0) return Number.NaN;
    // Clinger's fast path: while the digit string is an exact integer (< 2^53; once it is not,
    // the accumulated double is ≥ 2^53 as rounding is monotonic) one division rounds correctly.
    let value: number;
    if (m < EXACT_INTEGER_LIMIT && fraction <= 22) {
      value = fraction === 0 ? m : m / (POW10[fraction] as number);
    } else {
      let text = '';
      for (let k = digitsStart; k < i; k++) text += String.fromCharCode(buf[k] as number);
      value = Number(text);
    }
    return negative ? -value : value;
  }
}
