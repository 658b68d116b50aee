import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, Utf8Validator, utf8Slices } from './utf8.ts';

const bytes = (...b: number[]) => Uint8Array.from(b);
const enc = (s: string) => new TextEncoder().encode(s);

function chunked(input: Uint8Array, size: number): number {
  const v = new Utf8Validator();
  for (let i = 0; i < input.length; i += size) v.push(input.subarray(i, i + size));
  v.end();
  return v.invalidAt;
}

describe('firstInvalidUtf8', () => {
  it('accepts ASCII, multi-byte text and the extremes of each length', () => {
    expect(firstInvalidUtf8(new Uint8Array(0))).toBe(-1);
    expect(firstInvalidUtf8(enc('{"a": 1}\n'))).toBe(-1);
    expect(firstInvalidUtf8(enc('ÿ€中𝄞\u{10ffff}\u{feff}'))).toBe(-1);
    expect(firstInvalidUtf8(bytes(0xc2, 0x80, 0xdf, 0xbf))).toBe(-1);
    expect(firstInvalidUtf8(bytes(0xe0, 0xa0, 0x80, 0xed, 0x9f, 0xbf, 0xee, 0x80, 0x80))).toBe(-1);
    expect(firstInvalidUtf8(bytes(0xf0, 0x90, 0x80, 0x80, 0xf4, 0x8f, 0xbf, 0xbf))).toBe(-1);
  });

  it('reports an invalid start byte at its own offset', () => {
    expect(firstInvalidUtf8(bytes(0x41, 0x80))).toBe(1);
    expect(firstInvalidUtf8(bytes(0x41, 0x42, 0xff, 0x41))).toBe(2);
    expect(firstInvalidUtf8(bytes(0xf5, 0x80, 0x80, 0x80))).toBe(0);
  });

  it('rejects overlong forms at the lead byte', () => {
    expect(firstInvalidUtf8(bytes(0x41, 0xc0, 0xaf))).toBe(1);
    expect(firstInvalidUtf8(bytes(0xc1, 0xbf))).toBe(0);
    expect(firstInvalidUtf8(bytes(0x20, 0xe0, 0x9f, 0xbf))).toBe(1);
    expect(firstInvalidUtf8(bytes(0xf0, 0x8f, 0xbf, 0xbf))).toBe(0);
  });

  it('rejects surrogates and code points above U+10FFFF', () => {
    expect(firstInvalidUtf8(bytes(0x61, 0x62, 0xed, 0xa0, 0x80))).toBe(2);
    expect(firstInvalidUtf8(bytes(0xed, 0xbf, 0xbf))).toBe(0);
    expect(firstInvalidUtf8(bytes(0x61, 0xf4, 0x90, 0x80, 0x80))).toBe(1);
  });

  it('reports a bad continuation byte at the start of its sequence', () => {
    expect(firstInvalidUtf8(bytes(0x61, 0xe2, 0x82, 0x41))).toBe(1);
    expect(firstInvalidUtf8(bytes(0xf0, 0x9f, 0x98, 0xc3, 0xa9))).toBe(0);
  });

  it('reports a sequence truncated by the end of input at its lead byte', () => {
    expect(firstInvalidUtf8(bytes(0x61, 0x62, 0xe2, 0x82))).toBe(2);
    expect(firstInvalidUtf8(bytes(0xf0, 0x9f, 0x98))).toBe(0);
    expect(firstInvalidUtf8(bytes(0xc3))).toBe(0);
  });
});

describe('Utf8Validator', () => {
  it('validates sequences split across chunks', () => {
    const text = enc(`${'x'.repeat(37)}é中𝄞${'y'.repeat(20)}𝄞`);
    for (const size of [1, 2, 3, 5, 7, 64]) expect(chunked(text, size)).toBe(-1);
  });

  it('reports absolute offsets across chunks', () => {
    const input = bytes(0x61, 0x62, 0x63, 0xe2, 0x82, 0x41, 0x80);
    for (const size of [1, 2, 3, 4, 7]) expect(chunked(input, size)).toBe(3);
    const tail = bytes(0x61, 0x62, 0x63, 0x64, 0xf0, 0x9f);
    for (const size of [1, 2, 5]) expect(chunked(tail, size)).toBe(4);
  });

  it('is valid until end() finds a truncated sequence', () => {
    const v = new Utf8Validator();
    v.push(bytes(0x61, 0xe2));
    expect(v.invalidAt).toBe(-1);
    v.push(bytes(0x82));
    expect(v.invalidAt).toBe(-1);
    v.end();
    expect(v.invalidAt).toBe(1);
  });

  it('keeps the first error and ignores later chunks', () => {
    const v = new Utf8Validator();
    v.push(bytes(0x61, 0xff));
    v.push(bytes(0x80));
    v.end();
    expect(v.invalidAt).toBe(1);
  });

  it('refuses chunks after end()', () => {
    const v = new Utf8Validator();
    v.end();
    expect(() => v.push(bytes(0x61))).toThrow(RangeError);
  });
});

describe('utf8Slices', () => {
  it('encodes in slices without splitting surrogate pairs', () => {
    const text = `a${'\u{1F600}'.repeat(10)}\u00e9z`;
    for (const size of [1, 2, 3, 7]) {
      // Each slice is valid only until the next one is made: copy it at once.
      const parts: Uint8Array[] = [];
      for (const slice of utf8Slices(text, size)) parts.push(slice.slice());
      const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) {
        joined.set(p, o);
        o += p.length;
      }
      expect(joined).toEqual(enc(text));
    }
  });
});
