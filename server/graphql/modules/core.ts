import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type { Resolvers } from '../generated/resolvers.ts';

export const typeDefs = /* GraphQL */ `
  """
  A plain JSON object; anything else (arrays, strings...) is an input error. A null entry of an
  [Object] list reaches the field's own rules, which say what is wrong with it.
  """
  scalar Object

  type Query
  type Mutation
`;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function literalValue(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((item) => literalValue(item, variables));
    case Kind.OBJECT:
      return Object.fromEntries(
        node.fields.map((field) => [field.name.value, literalValue(field.value, variables)]),
      );
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    default:
      throw new GraphQLError('Object must be a JSON object');
  }
}

const ObjectScalar = new GraphQLScalarType({
  name: 'Object',
  description: 'A plain JSON object.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (!isPlainObject(value)) throw new GraphQLError('Object must be a JSON object');
    return value;
  },
  parseLiteral: (node, variables) => {
    if (node.kind !== Kind.OBJECT) throw new GraphQLError('Object must be a JSON object');
    return literalValue(node, variables);
  },
});

export const resolvers = { Object: ObjectScalar } satisfies Resolvers;
