// The dashboard service's published GraphQL contract: the SDL transcribed from its interface
// description, checked in under docs/spec/interfaces so a clone stands alone. Our printed schema may
// add to it, never break it (tests: published-contract.test.ts, published-operations.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, type GraphQLSchema } from 'graphql';

const REPOSITORY = join(import.meta.dirname, '..', '..');

/** The repository's copy of the published SDL. */
export const PUBLISHED_SCHEMA_FILE = join(
  REPOSITORY,
  'docs',
  'spec',
  'interfaces',
  'dashboard-schema.graphql',
);

/** Where the specs live beside a working checkout; a clone on its own does not have it. */
export const SHARED_SCHEMA_FILE = join(
  REPOSITORY,
  '..',
  'shared',
  'spec',
  'interfaces',
  'dashboard-schema.graphql',
);

export function publishedSchema(): GraphQLSchema {
  return buildSchema(readFileSync(PUBLISHED_SCHEMA_FILE, 'utf8'));
}
