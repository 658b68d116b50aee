// The dashboard service's published GraphQL contract: the SDL transcribed from its interface
// description, checked in under docs/spec/interfaces so a clone stands alone. Our printed schema may
// add to it, never break it (published-contract.test.ts, published-operations.test.ts, published-client.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, type GraphQLSchema } from 'graphql';

/** The repository's copy of the published SDL. */
export const PUBLISHED_SCHEMA_FILE = join(
  import.meta.dirname,
  '../../docs/spec/interfaces/dashboard-schema.graphql',
);

export function publishedSchema(): GraphQLSchema {
  return buildSchema(readFileSync(PUBLISHED_SCHEMA_FILE, 'utf8'));
}
