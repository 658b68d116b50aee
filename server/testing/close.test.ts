import { describe, expect, it } from 'vitest';
import { closeMismatches } from './close.ts';

describe('closeMismatches', () => {
  it('lets fractions differ by 1e-9 relative, and nothing else', () => {
    expect(closeMismatches({ a: 1.5 + 1e-10, b: [1, null, 'x'] }, { a: 1.5, b: [1, null, 'x'] })).toEqual([]);
    const [far] = closeMismatches({ a: 1.5 + 1e-8 }, { a: 1.5 });
    expect(far).toMatch(/^body\.a: 1\.50000001 is not 1\.5 \(off by 9\.9\d*e-9\)$/);
    expect(closeMismatches({ n: 2 }, { n: 3 })).toEqual(['body.n: 2 is not 3']);
    expect(closeMismatches({ b: 1, a: 1 }, { a: 1, b: 1 })).toEqual(['body: keys b,a are not a,b']);
    expect(closeMismatches({ a: undefined }, { a: null })).toEqual(['body.a: undefined is not null']);
    expect(closeMismatches([0.5], [0.25, 0.5])).toEqual(['body: keys 0 are not 0,1']);
  });
});
