import { describe, expect, it } from 'vitest';
import {
  type Coerced,
  CoercionFailure,
  coerceBoolean,
  coerceInteger,
  coerceNumber,
  coerceString,
  trimWhiteSpace,
} from './coerce.ts';
import { JsonNumber, type JsonValue } from './json-value.ts';

const int = (v: number) => new JsonNumber(v, String(v));
const float = (v: number) => new JsonNumber(v, null);
const outcome = (r: Coerced<unknown>) => (r instanceof CoercionFailure ? r.type : r);

describe('coerceNumber', () => {
  it('passes finite numbers and maps booleans to 1 / 0', () => {
    expect(outcome(coerceNumber(float(2.5)))).toBe(2.5);
    expect(outcome(coerceNumber(int(7)))).toBe(7);
    expect(outcome(coerceNumber(true))).toBe(1);
    expect(outcome(coerceNumber(false))).toBe(0);
  });

  it('rejects non-finite numbers', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(outcome(coerceNumber(float(v)))).toBe('finite_number');
  });

  it.each([
    ['45', 45],
    [' 1e3 ', 1000],
    ['5.', 5],
    ['+.5', 0.5],
    ['007', 7],
    ['9_000', 9000],
    ['1_2.5_0', 12.5],
    ['\u00a0\u3000-3.25\u2029', -3.25],
    ['1e-400', 0],
    ['0.1', 0.1],
  ])('parses the string %j', (text, value) => {
    expect(outcome(coerceNumber(text))).toBe(value);
  });

  it.each(['1e400', '-1E999', 'inf', '-Infinity', 'NaN', ' +nan ', 'INF', 'in_f', '1_e400'])(
    '%j → finite_number',
    (text) => {
      expect(outcome(coerceNumber(text))).toBe('finite_number');
    },
  );

  it.each(['', '   ', '0x10', '1,5', '١٢', '1__0', '_9', '9_', 'e5', '.', '1e', '--1', 'infinit'])(
    '%j → float_parsing',
    (text) => {
      expect(outcome(coerceNumber(text))).toBe('float_parsing');
    },
  );

  it('rejects null, arrays and objects as float_type', () => {
    for (const v of [null, [], new Map()] as JsonValue[]) expect(outcome(coerceNumber(v))).toBe('float_type');
  });
});

describe('coerceInteger', () => {
  it('accepts integral numbers up to 2^53 - 1', () => {
    expect(outcome(coerceInteger(int(3)))).toBe(3);
    expect(outcome(coerceInteger(float(3)))).toBe(3);
    expect(outcome(coerceInteger(int(Number.MAX_SAFE_INTEGER)))).toBe(Number.MAX_SAFE_INTEGER);
    expect(Object.is(outcome(coerceInteger(float(-0))), 0)).toBe(true);
    expect(outcome(coerceInteger(true))).toBe(1);
    expect(outcome(coerceInteger(false))).toBe(0);
  });

  it('rejects the rest of the number line with the right type', () => {
    expect(outcome(coerceInteger(int(2 ** 53)))).toBe('int_parsing_size');
    expect(outcome(coerceInteger(float(-1e20)))).toBe('int_parsing_size');
    expect(outcome(coerceInteger(float(3.5)))).toBe('int_from_float');
    expect(outcome(coerceInteger(float(Number.NaN)))).toBe('finite_number');
    expect(outcome(coerceInteger(new JsonNumber(Number.POSITIVE_INFINITY, '1'.repeat(400))))).toBe(
      'finite_number',
    );
  });

  it.each([
    ['3', 3],
    ['+3', 3],
    ['3.0', 3],
    ['1_0', 10],
    [' -12.000 ', -12],
    ['007', 7],
    ['9007199254740991', 9007199254740991],
    // §2.5 removes every `_` once the grammar fails, wherever it sits (not only between digits).
    ['3.0_0', 3],
    ['3_.0', 3],
  ])('parses the string %j', (text, value) => {
    expect(outcome(coerceInteger(text))).toBe(value);
  });

  it('makes "-0" a positive zero', () => {
    expect(Object.is(outcome(coerceInteger('-0')), 0)).toBe(true);
  });

  it.each(['3.5', '3.', '3e0', '', 'x', '1__0', '0x1'])('%j → int_parsing', (text) => {
    expect(outcome(coerceInteger(text))).toBe('int_parsing');
  });

  it('applies the size limit to strings', () => {
    expect(outcome(coerceInteger('9007199254740992'))).toBe('int_parsing_size');
    expect(outcome(coerceInteger(`-${'9'.repeat(30)}`))).toBe('int_parsing_size');
    expect(outcome(coerceInteger(`${'0'.repeat(30)}5`))).toBe(5);
  });

  it('rejects null, arrays and objects as int_type', () => {
    for (const v of [null, [], new Map()] as JsonValue[]) expect(outcome(coerceInteger(v))).toBe('int_type');
  });
});

describe('coerceBoolean', () => {
  it('accepts booleans and the numbers 0 and 1', () => {
    expect(outcome(coerceBoolean(true))).toBe(true);
    expect(outcome(coerceBoolean(false))).toBe(false);
    expect(outcome(coerceBoolean(int(1)))).toBe(true);
    expect(outcome(coerceBoolean(float(1)))).toBe(true);
    expect(outcome(coerceBoolean(float(-0)))).toBe(false);
    expect(outcome(coerceBoolean(int(0)))).toBe(false);
  });

  it('rejects other numbers by integrality', () => {
    expect(outcome(coerceBoolean(int(2)))).toBe('bool_parsing');
    expect(outcome(coerceBoolean(float(-3)))).toBe('bool_parsing');
    expect(outcome(coerceBoolean(float(0.5)))).toBe('bool_type');
    expect(outcome(coerceBoolean(float(Number.NaN)))).toBe('bool_type');
  });

  it.each([
    ['true', true],
    ['YES', true],
    ['On', true],
    ['t', true],
    ['Y', true],
    ['1', true],
    ['false', false],
    ['no', false],
    ['OFF', false],
    ['F', false],
    ['n', false],
    ['0', false],
  ])('reads %j', (text, value) => {
    expect(outcome(coerceBoolean(text))).toBe(value);
  });

  it('does not trim or fold non-ASCII case in strings', () => {
    for (const text of [' true', 'true ', '', '2', 'tru', 'nope', 'Yes\u00a0'])
      expect(outcome(coerceBoolean(text))).toBe('bool_parsing');
  });

  it('rejects null, arrays and objects as bool_type', () => {
    for (const v of [null, [], new Map()] as JsonValue[]) expect(outcome(coerceBoolean(v))).toBe('bool_type');
  });
});

describe('coerceString', () => {
  it('trims White_Space and rejects non-strings', () => {
    expect(outcome(coerceString(' \t1.0\u0085\u2000'))).toBe('1.0');
    expect(outcome(coerceString('\u180e1.0'))).toBe('\u180e1.0');
    for (const v of [null, true, int(1), [], new Map()] as JsonValue[])
      expect(outcome(coerceString(v))).toBe('string_type');
  });

  it('trims exactly the White_Space set', () => {
    const w = '\t\n\u000b\f\r \u0085\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000';
    expect(trimWhiteSpace(`${w}x${w}`)).toBe('x');
    for (const other of ['\u001c', '\u200b', '\ufeff', '\u180e'])
      expect(trimWhiteSpace(`${other}x`)).toBe(`${other}x`);
  });
});
