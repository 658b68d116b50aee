import { describe, expect, it } from 'vitest';
import { LineSplitter } from './lines.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function split(text: string, sizes: (i: number) => number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter({
    line(buf, start, end) {
      lines.push(decoder.decode(buf.subarray(start, end)));
    },
  });
  const bytes = encoder.encode(text);
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const n = sizes(k++);
    // A fresh copy per chunk: the splitter must not rely on earlier chunks staying intact.
    splitter.push(bytes.slice(i, i + n));
    i += n;
  }
  splitter.finish();
  return lines;
}

function reference(text: string): string[] {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const lines = body.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

describe('LineSplitter', () => {
  const samples = [
    'a\nb\nc\n',
    'a\r\nb\r\n\r\nc',
    'a\rb\r\rc\r',
    '\r\n\n\r',
    'x\r',
    '\ufeffG0 X1\nG0 X2',
    '\ufeff\n',
    'mixed\r\nends\rand\nmore\u2028not a break\u0085nor this\n',
    'long line '.repeat(100),
    '',
  ];

  it('splits on CRLF, LF and CR whatever the chunking, CRLF pairs split across chunks included', () => {
    for (const text of samples) {
      const expected = reference(text);
      for (const size of [1, 2, 3, 5, 64, 1 << 20]) {
        expect(
          split(text, () => size),
          `${JSON.stringify(text)} / ${size}`,
        ).toEqual(expected);
      }
      let seed = 7;
      const random = (): number => {
        seed = (seed * 48271) % 2147483647;
        return 1 + (seed % 9);
      };
      expect(split(text, random)).toEqual(expected);
    }
  });

  it('ignores empty chunks, also between a CR and its LF', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter({
      line(buf, start, end) {
        lines.push(decoder.decode(buf.subarray(start, end)));
      },
    });
    for (const part of ['a\r', '', '\nb', '', '\r', '', 'c']) splitter.push(encoder.encode(part));
    splitter.finish();
    expect(lines).toEqual(['a', 'b', 'c']);
  });
});
