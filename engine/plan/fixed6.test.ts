import { describe, expect, it } from 'vitest';
import { fmt6 } from '../numeric.ts';
import { writeFixed6, writeUint } from './fixed6.ts';

const buf = new Uint8Array(1024);
const decoder = new TextDecoder();

function fast(x: number): string {
  return decoder.decode(buf.subarray(0, writeFixed6(buf, 0, x)));
}

/** The double `steps` representable values away from x (towards larger magnitude). */
function bitStep(x: number, steps: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(steps));
  return view.getFloat64(0);
}

/** Deterministic PRNG (mulberry32) so a failure can be reproduced. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function expectSame(values: number[]): void {
  const bad: string[] = [];
  for (const x of values) {
    const want = fmt6(x);
    const got = fast(x);
    if (got !== want && bad.length < 10) bad.push(`${x}: ${got} != ${want}`);
  }
  expect(bad).toEqual([]);
}

describe('writeFixed6', () => {
  it('writes the §1.1 examples', () => {
    expect(fast(500)).toBe('500');
    expect(fast(231.42857142857142)).toBe('231.428571');
    expect(fast(-5.710593137499643)).toBe('-5.710593');
    expect(fast(-1e-9)).toBe('-0');
    expect(fast(-0)).toBe('-0');
    expect(fast(0)).toBe('0');
    expect(fast(0.0078125)).toBe('0.007812');
    expect(fast(0.0234375)).toBe('0.023438');
    expect(fast(1e25)).toBe('10000000000000000905969664');
    expect(fast(Number.NaN)).toBe('nan');
  });

  it('matches fmt6 on every exact tie up to 2^20 / 128', () => {
    const values: number[] = [];
    for (let k = 0; k < 60000; k++) {
      const odd = 2 * k + 1;
      values.push(odd / 128, -odd / 128, (odd + 2 ** 20 * 128) / 128);
    }
    expectSame(values);
  });

  it('matches fmt6 next to decimal half-way points', () => {
    const rnd = random(7);
    const values: number[] = [];
    for (let k = 0; k < 20000; k++) {
      // (m + ½)·10^-6 at magnitudes from 1e-6 to 1e9, and its neighbours a few ulps either side.
      const scale = 10 ** Math.floor(rnd() * 15);
      const m = Math.floor(rnd() * scale);
      const half = (m + 0.5) / 1e6;
      for (let s = -3; s <= 3; s++) values.push(bitStep(half, s), -bitStep(half, s));
    }
    expectSame(values);
  });

  it('matches fmt6 on random doubles of every magnitude and at the path boundaries', () => {
    const rnd = random(11);
    const values: number[] = [];
    for (let k = 0; k < 60000; k++) {
      const mag = 10 ** (rnd() * 30 - 12);
      values.push(mag * (rnd() < 0.5 ? -1 : 1), Math.round(rnd() * 1e6) / 64);
    }
    for (const edge of [4e-7, 5e-7, 1e9, 1e15, 2 ** 50, 999999999.9999995, 0.9999995]) {
      for (let s = -4; s <= 4; s++) values.push(bitStep(edge, s), -bitStep(edge, s));
    }
    values.push(Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, 1e21, -1e21, 123456789, 1e8 + 0.5);
    expectSame(values);
  });

  it('writes integers of every length', () => {
    for (const v of [0, 7, 10, 99, 100, 12345, 999999999, 1000000000, 2147483647]) {
      expect(decoder.decode(buf.subarray(0, writeUint(buf, 0, v)))).toBe(String(v));
    }
  });
});
