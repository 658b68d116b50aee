// Numeric conventions of spec/winding.md §1: the exact arithmetic helpers and the number formats
// that make the planner's output byte-identical to the Python reference.

/** Degrees → radians factor; `radians(x) = x * DEG`. */
export const DEG = Math.PI / 180;
/** Radians → degrees factor; `degrees(x) = x * RAD` (never `x * 180 / π`: the last bit differs). */
export const RAD = 180 / Math.PI;

export function sq(x: number): number {
  return x * x;
}

/** Round to the nearest integer, ties to even (Python `round`). `Math.round` rounds ties up. */
export function rhe(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** Python's `a % b` for b > 0: the result takes the sign of b, and is never −0. */
export function pmod(a: number, b: number): number {
  let r = a % b;
  if (r !== 0 && r < 0) r = r + b;
  if (r === 0) r = 0;
  return r;
}

/** Python `math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)`. */
export function isclose(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 1e-6);
}

/** Non-negative greatest common divisor of two integral doubles; `gcd(0, n) = n`. */
export function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) {
    const t = x % y;
    x = y;
    y = t;
  }
  return x;
}

function stripFraction(s: string): string {
  if (!s.includes('.')) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--;
  if (s.charCodeAt(end - 1) === 46) end--;
  return s.slice(0, end);
}

/**
 * Python `f"{x:.6f}"` with trailing zeros and point stripped. This is the exact (slow) definition;
 * the planner's hot path formats into bytes with `writeFixed6` (engine/plan/fixed6.ts), which must
 * agree with it digit for digit.
 */
export function fmt6(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  // toFixed switches to exponent notation from 1e21; Python prints every digit of the integer.
  if (Math.abs(x) >= 1e21) return BigInt(x).toString();
  let s = x.toFixed(6);
  if (Object.is(x, -0)) s = `-${s}`;
  // An exact tie has x·10^6 = k + ½, which for a dyadic x means x·128 is an odd integer; toFixed
  // rounds it away from zero, Python to even.
  const x128 = x * 128;
  if (Number.isInteger(x128) && x128 % 2 !== 0) {
    const last = s.charCodeAt(s.length - 1) - 48;
    if (last % 2 === 1) s = s.slice(0, -1) + String(last - 1);
  }
  return stripFraction(s);
}

/** The shortest round-trip digits and decimal exponent of a finite non-zero |x|. */
function shortestDigits(x: number): { digits: string; exponent: number } {
  const e = Math.abs(x).toExponential();
  const at = e.indexOf('e');
  return { digits: e.slice(0, at).replace('.', ''), exponent: Number(e.slice(at + 1)) };
}

function exponentSuffix(n: number): string {
  const a = Math.abs(n);
  return `e${n < 0 ? '-' : '+'}${a < 10 ? '0' : ''}${a}`;
}

/** Python `repr(float)`. */
export function pyrepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const { digits, exponent: n } = shortestDigits(x);
  if (n < -4 || n > 15) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}${exponentSuffix(n)}`;
  }
  if (n < 0) return `${sign}0.${'0'.repeat(-n - 1)}${digits}`;
  const whole = digits.length > n + 1 ? digits.slice(0, n + 1) : digits.padEnd(n + 1, '0');
  const fraction = digits.slice(n + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

/** Header JSON values: integers in full without `.0` (as Python prints an int), else `pyrepr`. */
export function hdr(x: number): string {
  if (Number.isInteger(x)) return BigInt(x).toString();
  return pyrepr(x);
}

/** The exact value of a finite non-zero |x| as the fraction num / den of BigInts. */
function exactFraction(x: number): { num: bigint; den: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent: number;
  if (biased === 0) {
    exponent = -1074;
  } else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return exponent >= 0
    ? { num: mantissa << BigInt(exponent), den: 1n }
    : { num: mantissa, den: 1n << BigInt(-exponent) };
}

function pow10(k: number): bigint {
  return 10n ** BigInt(k);
}

/** Python `format(x, ".6g")`, rounding the exact binary value half to even. */
export function g6(x: number): string {
  return gFormat(x, 6);
}

/** Python `format(x, ".{precision}g")` (precision ≥ 1), rounding the exact binary value half to even. */
export function gFormat(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { num, den } = exactFraction(x);
  // Decimal exponent n with 10^n ≤ |x| < 10^(n+1); the float estimate is corrected exactly.
  let n = Math.floor(Math.log10(Math.abs(x)));
  const atLeastPow10 = (k: number): boolean => (k >= 0 ? num >= pow10(k) * den : num * pow10(-k) >= den);
  while (!atLeastPow10(n)) n--;
  while (atLeastPow10(n + 1)) n++;
  // R = |x| · 10^(p−1−n) rounded half to even: p significant digits.
  const shift = precision - 1 - n;
  const scaledNum = shift >= 0 ? num * pow10(shift) : num;
  const scaledDen = shift >= 0 ? den : den * pow10(-shift);
  let r = scaledNum / scaledDen;
  const twiceRem = (scaledNum % scaledDen) * 2n;
  if (twiceRem > scaledDen || (twiceRem === scaledDen && r % 2n === 1n)) r += 1n;
  if (r === pow10(precision)) {
    r = pow10(precision - 1);
    n += 1;
  }
  const digits = r.toString();
  if (n >= -4 && n < precision) {
    let text: string;
    if (n >= 0) text = `${digits.slice(0, n + 1)}.${digits.slice(n + 1)}`;
    else text = `0.${'0'.repeat(-n - 1)}${digits}`;
    return sign + stripFraction(text);
  }
  return `${sign}${stripFraction(`${digits[0]}.${digits.slice(1)}`)}${exponentSuffix(n)}`;
}
