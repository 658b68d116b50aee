import { describe, expect, it } from 'vitest';
import { DecimalScanner, skipWhitespace, trimEnd, whitespaceAt, whitespaceBefore, wordEnd } from './bytes.ts';

const encoder = new TextEncoder();

// spec §2.5: U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000.
const W = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

describe('whitespace at byte level', () => {
  it('recognises every member of W, forwards and backwards, and nothing else', () => {
    const members = new Set(W);
    const wrong: string[] = [];
    // Every BMP code point that UTF-8 encodes in one to three bytes (surrogates excluded).
    for (let cp = 0; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const bytes = encoder.encode(`a${String.fromCodePoint(cp)}b`);
      const expected = members.has(cp) ? bytes.length - 2 : 0;
      if (whitespaceAt(bytes, 1, bytes.length - 1) !== expected) wrong.push(`at U+${cp.toString(16)}`);
      if (whitespaceBefore(bytes, 1, bytes.length - 1) !== expected)
        wrong.push(`before U+${cp.toString(16)}`);
    }
    expect(wrong).toEqual([]);
    const astral = encoder.encode('\u{1F600}');
    expect(whitespaceAt(astral, 0, astral.length)).toBe(0);
    expect(whitespaceBefore(astral, 0, astral.length)).toBe(0);
  });

  it('never reads past the given bounds', () => {
    const nbsp = encoder.encode('\u00a0\u3000');
    expect(whitespaceAt(nbsp, 0, 1)).toBe(0);
    expect(whitespaceAt(nbsp, 2, 4)).toBe(0);
    expect(whitespaceBefore(nbsp, 1, 2)).toBe(0);
    expect(whitespaceBefore(nbsp, 3, 5)).toBe(0);
  });

  it('trims, skips and splits words on multi-byte whitespace', () => {
    const text = encoder.encode('\u3000\u00a0G0\u2003X1\u205f');
    const start = skipWhitespace(text, 0, text.length);
    expect(start).toBe(5);
    const end = trimEnd(text, 0, text.length);
    expect(end).toBe(text.length - 3);
    const first = wordEnd(text, start, end);
    expect(new TextDecoder().decode(text.subarray(start, first))).toBe('G0');
    const second = skipWhitespace(text, first, end);
    expect(new TextDecoder().decode(text.subarray(second, wordEnd(text, second, end)))).toBe('X1');
    // U+200B (zero width space) and U+FEFF are not in W: they belong to the word.
    const zwsp = encoder.encode('X\u200b1');
    expect(wordEnd(zwsp, 0, zwsp.length)).toBe(zwsp.length);
  });
});

function read(text: string): { value: number; end: number } {
  const scanner = new DecimalScanner();
  const bytes = encoder.encode(text);
  const value = scanner.read(bytes, 0, bytes.length);
  return { value, end: scanner.end };
}

describe('DecimalScanner', () => {
  it('gives exactly what Number() gives for the matched text', () => {
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const digits = (n: number): string => {
      let s = '';
      for (let k = 0; k < n; k++) s += String(random(10));
      return s;
    };
    const samples = [
      '0',
      '-0',
      '+0',
      '-0.0',
      '5.',
      '.5',
      '+.5',
      '-.000',
      '007',
      '0.1',
      '0.3',
      '9007199254740993',
    ];
    samples.push('123456789012345678901234567890', '0.00000000000000000000001', '1.7976931348623157');
    samples.push(`1${'0'.repeat(400)}`, `0.${'0'.repeat(30)}1`, '51968.571429', '-5.710593', '231.428571');
    for (let k = 0; k < 20000; k++) {
      const sign = ['', '-', '+'][random(3)] as string;
      const intPart = digits(random(12));
      const frac = random(3) === 0 ? '' : `.${digits(random(14))}`;
      if (intPart === '' && (frac === '' || frac === '.')) continue;
      samples.push(sign + intPart + frac);
    }
    const wrong = samples.filter((text) => {
      const { value, end } = read(text);
      return !Object.is(value, Number(text)) || end !== text.length;
    });
    expect(wrong).toEqual([]);
    expect(samples.length).toBeGreaterThan(15000);
  });

  it('stops at the first byte outside the grammar and reports no digits as NaN', () => {
    expect(read('12.5X')).toEqual({ value: 12.5, end: 4 });
    expect(read('1e5')).toEqual({ value: 1, end: 1 });
    expect(read('1.2.3')).toEqual({ value: 1.2, end: 3 });
    expect(Number.isNaN(read('.').value)).toBe(true);
    expect(Number.isNaN(read('-').value)).toBe(true);
    expect(Number.isNaN(read('').value)).toBe(true);
    expect(Number.isNaN(read('abc').value)).toBe(true);
  });
});
