// fmt6 (spec/winding.md §1.1) written straight into a byte buffer: the planner formats three
// numbers per line, and going through strings (toFixed) would cost several times the rest of the
// planner. The digits must equal `fmt6` exactly, ties included, so the rounding decision is made
// on the exact product x·10^6, not on its rounded double.
import { fmt6 } from '../numeric.ts';

const MINUS = 45;
const DOT = 46;
const ZERO = 48;

/** Bytes `writeFixed6` may write for |x| < 1e15 (the planner's coordinate bound). */
export const FIXED6_MAX_BYTES = 24;

/** Veltkamp's splitter for binary64: 2^27 + 1. */
const SPLITTER = 134217729;

/**
 * Writes `fmt6(x)` as ASCII at `pos` and returns the position after it. The caller guarantees room:
 * `FIXED6_MAX_BYTES` for |x| < 1e15, `fmt6(x).length` in general.
 */
export function writeFixed6(buf: Uint8Array, pos: number, x: number): number {
  if (!(x < 1e9 && x > -1e9)) return writeAscii(buf, pos, fmt6(x));
  let ax = x;
  if (x < 0 || (x === 0 && 1 / x < 0)) {
    buf[pos++] = MINUS;
    ax = -x;
  }
  // Below 4e-7 the value rounds to 0 whatever the rounding error; above it the splitting below
  // cannot underflow.
  if (ax < 4e-7) {
    buf[pos++] = ZERO;
    return pos;
  }
  // p + err = ax · 10^6 exactly (Dekker's product; 10^6 has only 14 significant bits, so it needs
  // no split). p < 10^15 < 2^50, so p − floor(p) is exact, and so is the sign of (frac − ½) + err,
  // which decides the rounding; a zero sum is an exact tie.
  const p = ax * 1e6;
  const f = Math.floor(p);
  const c = SPLITTER * ax;
  const hi = c - (c - ax);
  const err = hi * 1e6 - p + (ax - hi) * 1e6;
  const side = p - f - 0.5 + err;
  const n = side > 0 || (side === 0 && f % 2 !== 0) ? f + 1 : f;
  // n ≤ 10^15: the quotient's fraction is a multiple of 10^-6, far above the division's error.
  const whole = Math.floor(n / 1e6);
  let frac = n - whole * 1e6;
  pos = writeUint(buf, pos, whole);
  if (frac !== 0) {
    buf[pos++] = DOT;
    let len = 6;
    while (frac % 10 === 0) {
      frac /= 10;
      len--;
    }
    for (let i = pos + len - 1; i >= pos; i--) {
      const q = (frac / 10) | 0;
      buf[i] = ZERO + frac - q * 10;
      frac = q;
    }
    pos += len;
  }
  return pos;
}

/** Writes a non-negative integer below 2^31 in decimal. */
export function writeUint(buf: Uint8Array, pos: number, v: number): number {
  if (v < 10) {
    buf[pos] = ZERO + v;
    return pos + 1;
  }
  let len = 2;
  for (let t = 100; v >= t && len < 10; t *= 10) len++;
  let rest = v;
  for (let i = pos + len - 1; i >= pos; i--) {
    const q = (rest / 10) | 0;
    buf[i] = ZERO + rest - q * 10;
    rest = q;
  }
  return pos + len;
}

/** Writes an ASCII string; the caller guarantees room for `text.length` bytes. */
export function writeAscii(buf: Uint8Array, pos: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[pos++] = text.charCodeAt(i);
  return pos;
}
