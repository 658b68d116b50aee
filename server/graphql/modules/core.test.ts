import { Kind, parseValue } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resolvers } from './core.ts';

const scalar = resolvers.Object;

describe('the Object scalar', () => {
  it('accepts plain JSON objects from variables and literals', () => {
    expect(scalar.parseValue({ a: 1, b: [true, null] })).toEqual({ a: 1, b: [true, null] });
    expect(
      scalar.parseLiteral(parseValue('{ a: 1, b: "x", c: [1.5, null], d: { e: $v } }'), { v: 7 }),
    ).toEqual({
      a: 1,
      b: 'x',
      c: [1.5, null],
      d: { e: 7 },
    });
  });

  it.each([[[1, 2]], ['text'], [3], [null], [new Date()]])('refuses %j', (value) => {
    expect(() => scalar.parseValue(value)).toThrow('Object must be a JSON object');
  });

  it('refuses non-object literals', () => {
    expect(() => scalar.parseLiteral({ kind: Kind.LIST, values: [] }, {})).toThrow(
      'Object must be a JSON object',
    );
  });
});
