// Our printed schema against the published contract: every type, field, argument and enum value the
// interface description names must be there with the same name and a type its clients can use.
// (That the repository's copy of the SDL is the shared one is checked with the other copies, by
// `npm run check:shared`.)
import { readFileSync } from 'node:fs';
import { buildSchema, findBreakingChanges } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE } from './codegen.ts';
import { publishedSchema } from './published-contract.ts';

const breakingChanges = (ours: string) =>
  findBreakingChanges(publishedSchema(), buildSchema(ours)).map(
    (change) => `${change.type}: ${change.description}`,
  );

describe('the published GraphQL contract', () => {
  it('has no breaking change in our printed schema', () => {
    expect(breakingChanges(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual([]);
  });

  it('would notice a contract spelling going missing', () => {
    // The check itself, on a schema that still speaks our former spelling of one argument.
    const former = readFileSync(SCHEMA_FILE, 'utf8').replace(
      'transferDashboardOwnership(_id: ID!, newOwnerUserId: ID!)',
      'transferDashboardOwnership(_id: ID!, userId: ID!)',
    );
    expect(breakingChanges(former)).toEqual([
      'ARG_REMOVED: Mutation.transferDashboardOwnership arg newOwnerUserId was removed.',
      'REQUIRED_ARG_ADDED: A required arg userId on Mutation.transferDashboardOwnership was added.',
    ]);
  });
});
