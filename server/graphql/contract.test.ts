// The checked-in contract must match the modules: run `npm run codegen` after changing any SDL.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION, fieldsWithoutRule } from './authorization.ts';
import {
  generateOperationTypes,
  generateResolverTypes,
  OPERATION_TYPES_FILE,
  printContract,
  RESOLVER_TYPES_FILE,
  SCHEMA_FILE,
} from './codegen.ts';
import { buildSchema } from './yoga.ts';

describe('the GraphQL contract', () => {
  it('schema.graphql is the printed schema of the modules', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printContract());
  });

  it('the generated resolver types match schema.graphql', async () => {
    const sdl = readFileSync(SCHEMA_FILE, 'utf8');
    expect(readFileSync(RESOLVER_TYPES_FILE, 'utf8')).toBe(await generateResolverTypes(sdl));
  }, 60_000);

  it("the renderer's typed operations match schema.graphql and operations.graphql", async () => {
    const sdl = readFileSync(SCHEMA_FILE, 'utf8');
    expect(readFileSync(OPERATION_TYPES_FILE, 'utf8')).toBe(await generateOperationTypes(sdl));
  }, 60_000);
});

describe('the authorisation table', () => {
  const schema = buildSchema();

  it('has a rule for every Query, Mutation and Subscription field', () => {
    expect(fieldsWithoutRule(schema)).toEqual([]);
  });

  it('names only fields the schema has', () => {
    const stale: string[] = [];
    for (const [typeName, rules] of Object.entries(AUTHORIZATION)) {
      const type = schema.getType(typeName);
      const fields = type && 'getFields' in type ? type.getFields() : {};
      for (const name of Object.keys(rules)) if (!fields[name]) stale.push(`${typeName}.${name}`);
    }
    expect(stale).toEqual([]);
  });
});
