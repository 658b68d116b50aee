import { describe, expect, it } from 'vitest';
import { DEG, fmt6, g6, gcd, gFormat, hdr, isclose, pmod, pyrepr, RAD, rhe, sq } from './numeric.ts';

/** Exact value of a finite double as sign and num / den (independent of the module under test). */
function exact(x: number): { neg: boolean; num: bigint; den: bigint } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = biased === 0 ? frac : frac | (1n << 52n);
  const e = (biased === 0 ? 1 : biased) - 1075;
  return e >= 0 ? { neg, num: mant << BigInt(e), den: 1n } : { neg, num: mant, den: 1n << BigInt(-e) };
}

/** The double `steps` representable values above x (x > 0). */
function bitStep(x: number, steps: number): number {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  buf.setBigUint64(0, buf.getBigUint64(0) + BigInt(steps));
  return buf.getFloat64(0);
}

/** Python f"{x:.6f}" stripped, from the exact decimal expansion of the double. */
function exactFmt6(x: number): string {
  const { neg, num, den } = exact(x);
  const scaled = num * 1000000n;
  let q = scaled / den;
  const twice = (scaled % den) * 2n;
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  const whole = (q / 1000000n).toString();
  const frac = (q % 1000000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac === '' ? '' : `.${frac}`}`;
}

describe('constants and helpers', () => {
  it('uses the literal DEG and RAD factors', () => {
    expect(DEG).toBe(0.017453292519943295);
    expect(RAD).toBe(57.29577951308232);
    expect(sq(-3)).toBe(9);
  });

  it('rounds half to even', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999999, 2.5000001, 7, -7.2].map(rhe)).toEqual([
      0, 2, 2, 0, -2, -2, 2, 3, 7, -7,
    ]);
    expect(rhe(4503599627370495.5)).toBe(4503599627370496);
  });

  it('takes the modulo with the sign of the divisor and never returns −0', () => {
    expect(pmod(-1e-14, 360)).toBe(360);
    expect(pmod(-90, 360)).toBe(270);
    expect(Object.is(pmod(-720, 360), 0)).toBe(true);
    expect(Object.is(pmod(-0, 360), 0)).toBe(true);
    expect(pmod(725, 360)).toBe(5);
  });

  it('compares with relative 1e-9 and absolute 1e-6 tolerance', () => {
    expect(isclose(0, 1e-6)).toBe(true);
    expect(isclose(0, 1.1e-6)).toBe(false);
    expect(isclose(1e6, 1e6 + 5e-4)).toBe(true);
    expect(isclose(1e6, 1e6 + 2e-3)).toBe(false);
  });

  it('computes a non-negative gcd', () => {
    expect(gcd(0, 7)).toBe(7);
    expect(gcd(7, 0)).toBe(7);
    expect(gcd(12, 18)).toBe(6);
    expect(gcd(-4, 6)).toBe(2);
    expect(gcd(0, 0)).toBe(0);
  });
});

describe('fmt6', () => {
  it('formats the examples of §1.1', () => {
    expect(fmt6(500)).toBe('500');
    expect(fmt6(231.42857142857142)).toBe('231.428571');
    expect(fmt6(-5.710593137499643)).toBe('-5.710593');
    expect(fmt6(-1e-9)).toBe('-0');
    expect(fmt6(-0)).toBe('-0');
    expect(fmt6(0)).toBe('0');
    expect(fmt6(0.0078125)).toBe('0.007812');
    expect(fmt6(0.0234375)).toBe('0.023438');
    expect(fmt6(1e25)).toBe('10000000000000000905969664');
    expect(fmt6(1e21)).toBe('1000000000000000000000');
    expect(fmt6(-1e21)).toBe('-1000000000000000000000');
  });

  it('rounds exact ties half to even on both signs', () => {
    for (let k = -4000; k <= 4000; k++) {
      const x = (2 * k + 1) / 128;
      expect(fmt6(x)).toBe(exactFmt6(x));
    }
    expect(fmt6(-0.0078125)).toBe('-0.007812');
    expect(fmt6(123456.0078125)).toBe('123456.007812');
  });

  it('agrees with the exact decimal expansion near ties and at awkward magnitudes', () => {
    const values: number[] = [
      0.0000005, 0.0000015, 0.0000025, -0.0000005, 1.0000005, 999999.9999995, 0.1, 0.7,
    ];
    for (let i = 0; i < 2000; i++) {
      const base = (i * 7919) / 1000000 + 0.0000005;
      values.push(base, -base, base * 1024, bitStep(base, 1), bitStep(base, -1));
    }
    values.push(2 ** 53, 2 ** 70 + 2 ** 18, 999999999999999.9, 1e20, 123456789.12345679, 5e-324);
    for (const x of values) expect(fmt6(x), String(x)).toBe(exactFmt6(x));
  });
});

describe('pyrepr', () => {
  it('formats the examples of §1.1', () => {
    expect(pyrepr(95)).toBe('95.0');
    expect(pyrepr(45.5)).toBe('45.5');
    expect(pyrepr(0.0001)).toBe('0.0001');
    expect(pyrepr(0.00001)).toBe('1e-05');
    expect(pyrepr(1e16)).toBe('1e+16');
    expect(pyrepr(0)).toBe('0.0');
    expect(pyrepr(-0)).toBe('-0.0');
  });

  it('switches notation at the Python thresholds', () => {
    expect(pyrepr(1e15)).toBe('1000000000000000.0');
    expect(pyrepr(1234567890123456.8)).toBe('1234567890123456.8');
    expect(pyrepr(12345678901234568)).toBe('1.2345678901234568e+16');
    expect(pyrepr(0.00012345)).toBe('0.00012345');
    expect(pyrepr(-1.5e-7)).toBe('-1.5e-07');
    expect(pyrepr(1e100)).toBe('1e+100');
    expect(pyrepr(5e-324)).toBe('5e-324');
    expect(pyrepr(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(pyrepr(-600)).toBe('-600.0');
  });

  it.each([
    [123456789012345680, '1.2345678901234568e+17'],
    [0.1, '0.1'],
    [-2.5e-7, '-2.5e-07'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [-70, '-70.0'],
    [9.525, '9.525'],
  ])('%d → %s', (x, expected) => {
    expect(pyrepr(x)).toBe(expected);
  });
});

describe('hdr', () => {
  it('writes integers in full and other values as repr', () => {
    expect(hdr(70)).toBe('70');
    expect(hdr(1e22)).toBe('10000000000000000000000');
    expect(hdr(69.75)).toBe('69.75');
    expect(hdr(9.525)).toBe('9.525');
    expect(hdr(0.00001)).toBe('1e-05');
  });
});

describe('gFormat', () => {
  it('formats like Python format(x, ".{p}g") at other precisions', () => {
    expect(gFormat(31.5, 4)).toBe('31.5');
    expect(gFormat(27, 4)).toBe('27');
    expect(gFormat(12345.6, 4)).toBe('1.235e+04');
    expect(gFormat(0.00012345, 4)).toBe('0.0001234');
    expect(gFormat(9999.5, 4)).toBe('1e+04');
    expect(gFormat(31.5, 1)).toBe('3e+01');
    expect(gFormat(0.125, 1)).toBe('0.1');
    expect(gFormat(360 / 7, 6)).toBe(g6(360 / 7));
  });
});

describe('g6', () => {
  it('formats the examples of §1.1', () => {
    expect(g6(200)).toBe('200');
    expect(g6(360 / 7)).toBe('51.4286');
    expect(g6(360 / 7 / 2)).toBe('25.7143');
    expect(g6(1233600)).toBe('1.2336e+06');
    expect(g6(0.3515625)).toBe('0.351562');
    expect(g6(0)).toBe('0');
  });

  it('rounds the exact binary value half to even and carries into the exponent', () => {
    expect(g6(0.3515635)).toBe('0.351563'); // not a tie: the double is just below ...635
    expect(g6(1.0000015)).toBe('1');
    expect(g6(1.000005)).toBe('1.00001');
    expect(g6(999999.5)).toBe('1e+06');
    expect(g6(999998.5)).toBe('999998');
    expect(g6(999997.5)).toBe('999998');
    expect(g6(9.999995)).toBe('10');
    expect(g6(0.0001)).toBe('0.0001');
    expect(g6(0.00001)).toBe('1e-05');
    expect(g6(-123.4567)).toBe('-123.457');
    expect(g6(1e300)).toBe('1e+300');
    expect(g6(123456)).toBe('123456');
    expect(g6(1234567)).toBe('1.23457e+06');
    expect(g6(128.57142857142858)).toBe('128.571');
  });
});
