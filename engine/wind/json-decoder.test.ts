import { describe, expect, it } from 'vitest';
import { decodeJson, JsonSyntaxError } from './json-decoder.ts';
import { JsonNumber, type JsonValue } from './json-value.ts';

function failure(text: string): string {
  try {
    decodeJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error.describe(text);
    throw error;
  }
  throw new Error(`decoded without error: ${JSON.stringify(text)}`);
}

function num(value: JsonValue): JsonNumber {
  if (!(value instanceof JsonNumber)) throw new Error('not a number');
  return value;
}

describe('decodeJson errors (Python json.loads messages and positions)', () => {
  it.each([
    ['{"a":1,}', 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
    ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ['', 'Expecting value: line 1 column 1 (char 0)'],
    ['  ', 'Expecting value: line 1 column 3 (char 2)'],
    ['[1,]', 'Expecting value: line 1 column 4 (char 3)'],
    ['.5', 'Expecting value: line 1 column 1 (char 0)'],
    ['tru', 'Expecting value: line 1 column 1 (char 0)'],
    ['-', 'Expecting value: line 1 column 1 (char 0)'],
    ['-Inf', 'Expecting value: line 1 column 1 (char 0)'],
    ['[', 'Expecting value: line 1 column 2 (char 1)'],
    ['{1:2}', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
    ['{', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
    ['[01]', "Expecting ',' delimiter: line 1 column 3 (char 2)"],
    ['[1 2]', "Expecting ',' delimiter: line 1 column 4 (char 3)"],
    ['{"a":1', "Expecting ',' delimiter: line 1 column 7 (char 6)"],
    ['{"a":1 "b":2}', "Expecting ',' delimiter: line 1 column 8 (char 7)"],
    ['"abc', 'Unterminated string starting at: line 1 column 1 (char 0)'],
    ['"\\', 'Unterminated string starting at: line 1 column 1 (char 0)'],
    ['"a\u0001"', 'Invalid control character at: line 1 column 3 (char 2)'],
    ['"a\tb"', 'Invalid control character at: line 1 column 3 (char 2)'],
    ['"\\x"', 'Invalid \\escape: line 1 column 2 (char 1)'],
    ['"\\u12"', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
    ['"\\u12x4"', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
    ['["\\ud800\\uZZZZ"]', 'Invalid \\uXXXX escape: line 1 column 10 (char 9)'],
    // CPython quirks, checked against Python 3.11: four digits at the very end still fail, and a
    // high surrogate followed by a short second escape reports the second `u`.
    ['"a\\u1234', 'Invalid \\uXXXX escape: line 1 column 4 (char 3)'],
    ['"\\ud83d\\ude0"', 'Invalid \\uXXXX escape: line 1 column 9 (char 8)'],
    ['"\\ud83d\\u12"', 'Invalid \\uXXXX escape: line 1 column 9 (char 8)'],
    ['{"a\\', 'Unterminated string starting at: line 1 column 2 (char 1)'],
    ['[-]', 'Expecting value: line 1 column 2 (char 1)'],
    ['[1\n,\n2\n x]', "Expecting ',' delimiter: line 4 column 2 (char 8)"],
    ['{"é":1,\n"😀": x}', 'Expecting value: line 2 column 6 (char 13)'],
    ['"\\ud83d\\ude00" x', 'Extra data: line 1 column 16 (char 15)'],
    ['{"a":1}x', 'Extra data: line 1 column 8 (char 7)'],
    ['01', 'Extra data: line 1 column 2 (char 1)'],
    ['1.', 'Extra data: line 1 column 2 (char 1)'],
    ['1.e5', 'Extra data: line 1 column 2 (char 1)'],
    ['"\\u00e9"x', 'Extra data: line 1 column 9 (char 8)'],
    ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
  ])('%j', (text, message) => {
    expect(failure(text)).toBe(message);
  });

  it('counts lines by LF and columns from the last LF', () => {
    expect(failure('\n\n  [1,\n   2 x')).toBe("Expecting ',' delimiter: line 4 column 6 (char 13)");
    expect(failure('{"a":1}\n\n x')).toBe('Extra data: line 3 column 2 (char 10)');
    expect(failure('[\n\n')).toBe('Expecting value: line 3 column 1 (char 3)');
  });

  it('counts positions in code points, not UTF-16 units', () => {
    expect(failure('["😀😀", x]')).toBe('Expecting value: line 1 column 8 (char 7)');
    expect(failure('"😀\\q"')).toBe('Invalid \\escape: line 1 column 3 (char 2)');
    expect(failure('["𝄞",\n"𝄞𝄞", x]')).toBe('Expecting value: line 2 column 7 (char 12)');
  });

  it('allows 512 levels of nesting and rejects the bracket that opens level 513', () => {
    let value = decodeJson(`${'['.repeat(512)}${']'.repeat(512)}`);
    for (let depth = 1; depth < 512; depth++) value = (value as JsonValue[])[0] as JsonValue;
    expect(value).toEqual([]);
    const deep = `${'[{"a":'.repeat(256)}1${'}]'.repeat(256)}`;
    expect(() => decodeJson(deep)).not.toThrow();
    expect(failure(`${'['.repeat(513)}${']'.repeat(513)}`)).toBe(
      'Maximum nesting depth exceeded: line 1 column 513 (char 512)',
    );
    expect(failure(`${'[{"a":'.repeat(256)}{}`)).toBe(
      `Maximum nesting depth exceeded: line 1 column ${256 * 6 + 1} (char ${256 * 6})`,
    );
  });
});

describe('decodeJson values', () => {
  it('decodes literals including NaN and ±Infinity', () => {
    expect(decodeJson(' [true, false, null] ')).toEqual([true, false, null]);
    expect(num(decodeJson('NaN')).value).toBeNaN();
    expect(num(decodeJson('Infinity')).value).toBe(Number.POSITIVE_INFINITY);
    expect(num(decodeJson('-Infinity')).value).toBe(Number.NEGATIVE_INFINITY);
    expect(num(decodeJson('NaN')).integer).toBeNull();
  });

  it('tells integer tokens from float tokens', () => {
    expect(num(decodeJson('12'))).toEqual(new JsonNumber(12, '12'));
    expect(num(decodeJson('12.0'))).toEqual(new JsonNumber(12, null));
    expect(num(decodeJson('1E+2'))).toEqual(new JsonNumber(100, null));
    expect(num(decodeJson('-7'))).toEqual(new JsonNumber(-7, '-7'));
  });

  it('makes the integer -0 positive and keeps the float -0.0 negative', () => {
    const intZero = num(decodeJson('-0'));
    expect(Object.is(intZero.value, 0)).toBe(true);
    expect(intZero.integer).toBe('0');
    expect(Object.is(num(decodeJson('-0.0')).value, -0)).toBe(true);
  });

  it('rounds correctly and overflows to infinity', () => {
    expect(num(decodeJson('0.1')).value).toBe(0.1);
    expect(num(decodeJson('1e400')).value).toBe(Number.POSITIVE_INFINITY);
    expect(num(decodeJson('-1e400')).value).toBe(Number.NEGATIVE_INFINITY);
    const huge = num(decodeJson(`1${'0'.repeat(400)}`));
    expect(huge.value).toBe(Number.POSITIVE_INFINITY);
    expect(huge.integer).toBe(`1${'0'.repeat(400)}`);
    expect(num(decodeJson('9007199254740993')).value).toBe(9007199254740992);
  });

  it('decodes escapes and keeps lone surrogates', () => {
    expect(decodeJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00E9\\u00e9"')).toBe('"\\/\b\f\n\r\té\u00e9');
    expect(decodeJson('"\\ud83d\\ude00"')).toBe('😀');
    expect(decodeJson('"\\ud800x"')).toBe('\ud800x');
    expect(decodeJson('"\\udc00\\ud800"')).toBe('\udc00\ud800');
    expect(decodeJson('"\\ud800\\u0041"')).toBe('\ud800A');
    expect(decodeJson('"é😀 \u007f"')).toBe('é😀 \u007f');
  });

  it('lets the last duplicate key win at the first key position', () => {
    const value = decodeJson('{"a": 1, "b": 2, "a": 3}') as Map<string, JsonValue>;
    expect([...value.keys()]).toEqual(['a', 'b']);
    expect(num(value.get('a') as JsonValue).value).toBe(3);
  });

  it('treats __proto__ as an ordinary key', () => {
    const value = decodeJson('{"__proto__": {"x": 1}}') as Map<string, JsonValue>;
    expect(value.get('__proto__')).toBeInstanceOf(Map);
  });

  it('accepts only space, tab, LF and CR as whitespace', () => {
    expect(decodeJson(' \t\r\n[ 1 ,\t2 ]\r\n')).toHaveLength(2);
    expect(failure('\u00a0[]')).toBe('Expecting value: line 1 column 1 (char 0)');
    expect(failure('[]\f')).toBe('Extra data: line 1 column 3 (char 2)');
  });
});
