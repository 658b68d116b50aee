// Lax value coercion of spec/winding.md §2.5 (the reference implementation's pydantic "lax mode").
// Each function returns the coerced value or a CoercionFailure naming the error type (messages are
// in validate.ts). Failures are shared instances so that the common, valid path allocates nothing.
import { JsonNumber, type JsonValue } from './json-value.ts';

export type CoercionError =
  | 'finite_number'
  | 'float_parsing'
  | 'float_type'
  | 'int_parsing'
  | 'int_parsing_size'
  | 'int_from_float'
  | 'int_type'
  | 'bool_parsing'
  | 'bool_type'
  | 'string_type';

export class CoercionFailure {
  readonly type: CoercionError;

  constructor(type: CoercionError) {
    this.type = type;
  }
}

const FAILURES = new Map<CoercionError, CoercionFailure>();

function fail(type: CoercionError): CoercionFailure {
  let failure = FAILURES.get(type);
  if (!failure) {
    failure = new CoercionFailure(type);
    FAILURES.set(type, failure);
  }
  return failure;
}

export type Coerced<T> = T | CoercionFailure;

/** Unicode White_Space (§2.5 `W`). */
function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Trims `W` from both ends (every member is a single UTF-16 unit). */
export function trimWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWhiteSpace(text.charCodeAt(start))) start++;
  while (end > start && isWhiteSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

// Trim, and if the grammar fails, allow `_` between digits the way Rust's and Python's number
// parsing in the reference did: not leading, not trailing, never doubled.
function prepare(raw: string, grammar: RegExp): string | null {
  const text = trimWhiteSpace(raw);
  if (grammar.test(text)) return text;
  if (!text.includes('_') || text.startsWith('_') || text.endsWith('_') || text.includes('__')) return null;
  const joined = text.replaceAll('_', '');
  return grammar.test(joined) ? joined : null;
}

const FLOAT_TEXT = /^[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)$/i;
const NON_FINITE_TEXT = /^[+-]?(?:inf|infinity|nan)$/i;
const INTEGER_TEXT = /^[+-]?[0-9]+(?:\.0+)?$/;

export function coerceNumber(input: JsonValue): Coerced<number> {
  if (input instanceof JsonNumber) return Number.isFinite(input.value) ? input.value : fail('finite_number');
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input === 'string') {
    const text = prepare(input, FLOAT_TEXT);
    if (text === null) return fail('float_parsing');
    if (NON_FINITE_TEXT.test(text)) return fail('finite_number');
    const value = Number(text);
    return Number.isFinite(value) ? value : fail('finite_number');
  }
  return fail('float_type');
}

function checkSize(value: number): Coerced<number> {
  // `+ 0` turns −0 into the +0 of a Python int.
  return Math.abs(value) <= Number.MAX_SAFE_INTEGER ? value + 0 : fail('int_parsing_size');
}

export function coerceInteger(input: JsonValue): Coerced<number> {
  if (input instanceof JsonNumber) {
    const value = input.value;
    if (!Number.isFinite(value)) return fail('finite_number');
    if (!Number.isInteger(value)) return fail('int_from_float');
    return checkSize(value);
  }
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input === 'string') {
    const text = prepare(input, INTEGER_TEXT);
    if (text === null) return fail('int_parsing');
    const point = text.indexOf('.');
    const whole = point < 0 ? text : text.slice(0, point);
    const digits = whole.replace(/^[+-]?0*/, '');
    // 16 digits always fit a double exactly; more than that is beyond 2^53 - 1 anyway.
    if (digits.length > 16) return fail('int_parsing_size');
    const magnitude = digits === '' ? 0 : Number(digits);
    return checkSize(whole.startsWith('-') ? -magnitude : magnitude);
  }
  return fail('int_type');
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', 't', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'f', 'n', '0']);

export function coerceBoolean(input: JsonValue): Coerced<boolean> {
  if (typeof input === 'boolean') return input;
  if (input instanceof JsonNumber) {
    if (input.value === 0) return false;
    if (input.value === 1) return true;
    return fail(Number.isInteger(input.value) ? 'bool_parsing' : 'bool_type');
  }
  if (typeof input === 'string') {
    // ASCII-only folding: toLowerCase would turn U+212A KELVIN SIGN into an ASCII `k`.
    const word = input.replace(/[A-Z]/g, (c) => c.toLowerCase());
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return fail('bool_parsing');
  }
  return fail('bool_type');
}

export function coerceString(input: JsonValue): Coerced<string> {
  return typeof input === 'string' ? trimWhiteSpace(input) : fail('string_type');
}
