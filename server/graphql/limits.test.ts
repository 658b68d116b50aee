import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationLimitsRule } from './limits.ts';

const schema = buildSchema('type Query { a: Query, b: Int }');
const check = (source: string) =>
  validate(schema, parse(source), [...specifiedRules, operationLimitsRule]).map(
    (e) => e.extensions.code ?? e.message,
  );

describe('operation limits', () => {
  it('counts depth with the root field as 1 and fragments expanded', () => {
    const chain = (n: number) => `${'a { '.repeat(n - 1)}b${' }'.repeat(n - 1)}`;
    expect(check(`{ ${chain(15)} }`)).toEqual([]);
    expect(check(`{ ${chain(16)} }`)).toEqual(['OPERATION_TOO_DEEP']);
    expect(check(`{ a { ...F } } fragment F on Query { ${chain(14)} }`)).toEqual([]);
    expect(check(`{ a { ...F } } fragment F on Query { ${chain(15)} }`)).toEqual(['OPERATION_TOO_DEEP']);
  });

  it('stops on fragment cycles and leaves them to the standard rule', () => {
    const errors = check('{ ...F } fragment F on Query { a { ...F } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Cannot spread fragment "F" within itself/);
  });

  it('bounds exponential fragment fan-out', () => {
    const levels = Array.from(
      { length: 12 },
      (_, i) => `fragment F${i} on Query { a { ...F${i + 1} ...F${i + 1} } }`,
    );
    const source = `{ ...F0 } ${levels.join(' ')} fragment F12 on Query { b }`;
    expect(check(source)).toEqual(['OPERATION_TOO_LARGE']);
  });
});
