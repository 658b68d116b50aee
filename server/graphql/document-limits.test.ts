// Hostile GraphQL documents against a real workstation: limited before parsing,
// refused without a stack overflow, and the parse caches bounded in bytes.
import { buildSchema, GraphQLError, getLocation, parse, Source, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../testing/graphql.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import {
  ByteBoundedCache,
  boundedParserCaches,
  CACHE_BUDGET_BYTES,
  checkDocument,
  MAX_FIELDS,
  MAX_QUERY_BYTES,
  MAX_TOKENS,
  operationLimitsRule,
} from './limits.ts';

let ws: TestWorkstation;
beforeAll(async () => {
  ws = await startTestWorkstation();
});
afterAll(() => ws.dispose());

/** `{ __typename }` after a comment that brings the text to `bytes` bytes. */
const paddedQuery = (bytes: number) => {
  const tail = '\n{ __typename }';
  return `#${'x'.repeat(bytes - tail.length - 1)}${tail}`;
};

describe('GraphQL documents are limited before parsing', () => {
  it('answers a query over 100,000 bytes with 413 and still runs one of 99,000 bytes', async () => {
    const big = await gql(ws.urls.lan, paddedQuery(MAX_QUERY_BYTES + 1));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.raw)).toEqual({
      errors: [{ message: 'Query is larger than 100000 bytes', extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
    });
    // Multi-byte text counts in bytes, not characters.
    const wide = await gql(ws.urls.lan, `#${'é'.repeat(50_001)}\n{ __typename }`);
    expect(wide.status).toBe(413);

    const fits = await gql(ws.urls.lan, paddedQuery(99_000));
    expect([fits.status, fits.data, fits.errors]).toEqual([200, { __typename: 'Query' }, undefined]);
  });

  it('refuses more than 10,000 tokens as OPERATION_TOO_LARGE', async () => {
    // `{ a(x: [0 0 …]) }`: nine tokens around the list, so a long list is many tokens but one field.
    const tokens = (n: number) => `{ a(x: [${Array.from({ length: n - 9 }, () => '0').join(' ')}]) }`;
    const over = await gql(ws.urls.lan, tokens(MAX_TOKENS + 1));
    expect([over.status, over.errors?.map((e) => [e.message, e.extensions?.code])]).toEqual([
      200,
      [['Operation has more than 10000 tokens', 'OPERATION_TOO_LARGE']],
    ]);
    // At the token limit the document is parsed and validated (and refused by validation).
    const at = await gql(ws.urls.lan, tokens(MAX_TOKENS));
    expect(at.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('refuses too many fields before parsing, with the answer validation would give', async () => {
    const fields = (n: number) => `{ ${Array.from({ length: n }, () => '__typename').join(' ')} }`;
    const over = await gql(ws.urls.lan, fields(MAX_FIELDS + 1));
    expect([over.status, over.errors]).toEqual([
      200,
      [
        {
          message: 'Operation has more than 1000 fields',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'OPERATION_TOO_LARGE' },
        },
      ],
    ]);
    // At the limit the document goes on to parsing and validation (which has its own say about it).
    const within = await gql(ws.urls.lan, fields(MAX_FIELDS));
    expect(within.errors?.map((e) => e.extensions?.code) ?? []).not.toContain('OPERATION_TOO_LARGE');
    expect(within.errors?.map((e) => e.extensions?.code) ?? []).not.toContain('INTERNAL_SERVER_ERROR');
  });

  it('refuses a 5,000-deep selection without overflowing the stack', async () => {
    const deep = `${'{ a '.repeat(5000)}${'}'.repeat(5000)}`;
    const answer = await gql(ws.urls.lan, deep);
    expect(answer.status).toBe(200);
    expect(answer.errors?.map((e) => e.extensions?.code)).toEqual(['OPERATION_TOO_DEEP']);
    // Values nest too (lists, objects), with no depth limit of their own: bracket nesting bounds them.
    const deepValue = await gql(ws.urls.lan, `{ a(x: ${'['.repeat(5000)}${']'.repeat(5000)}) }`);
    expect(deepValue.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['Operation nesting exceeds 100', 'OPERATION_TOO_DEEP'],
    ]);
    // The spec's depth limit still answers with its own message.
    const sixteen = await gql(ws.urls.lan, `{ ${'me { '.repeat(15)}_id${' }'.repeat(15)} }`);
    expect(sixteen.errors?.[0]?.message).toMatch(/Operation depth exceeds 15|Cannot query field/);
    // The graphql-sse route refuses it too, without a stack overflow or a 5xx.
    const stream = await fetch(`${ws.urls.lan}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: deep }),
    });
    expect(stream.status).toBe(400);
    expect(await stream.json()).toEqual({
      errors: [{ message: 'Operation depth exceeds 15', extensions: { code: 'OPERATION_TOO_DEEP' } }],
    });
    // A document that does not parse, or does not validate, is answered with its code as well.
    const refused = async (query: string) => {
      const response = await fetch(`${ws.urls.lan}/graphql/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query }),
      });
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      return [response.status, body.errors[0]?.extensions.code];
    };
    expect(await refused('{ nope')).toEqual([400, 'GRAPHQL_PARSE_FAILED']);
    expect(await refused('{ nope }')).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    // A later request is served normally.
    expect((await gql(ws.urls.lan, '{ __typename }')).data).toEqual({ __typename: 'Query' });
  });
});

describe('document checks', () => {
  it('pass ordinary documents and leave syntax errors to the parser', () => {
    expect(checkDocument('query Q($a: Int) { a(x: [1, {b: 2}]) { b } }')).toBeUndefined();
    expect(checkDocument('{ "unterminated')).toBeUndefined();
    expect(checkDocument(`${'['.repeat(101)}`)?.code).toBe('OPERATION_TOO_DEEP');
    const nested = (n: number) => `{ a(x: ${'['.repeat(n - 2)}${']'.repeat(n - 2)}) }`;
    expect(checkDocument(nested(100))).toBeUndefined();
    expect(checkDocument(nested(101))?.message).toBe('Operation nesting exceeds 100');
  });

  it('refuse what the operation-limits rule refuses, with its code and position, before parsing', () => {
    const schema = buildSchema('type Query { a: Query, b: Int }');
    const byRule = (query: string) =>
      validate(schema, parse(query), [operationLimitsRule]).map((e) => [e.extensions.code, e.locations]);
    const byCheck = (query: string) => {
      const rejection = checkDocument(query);
      if (!rejection) return [];
      const { line, column } = getLocation(new Source(query), rejection.position ?? 0);
      return [[rejection.code, [{ line, column }]]];
    };
    const chain = (n: number) => `${'a { '.repeat(n - 1)}b${' }'.repeat(n - 1)}`;
    const bs = (n: number) => Array.from({ length: n }, () => 'b').join(' ');
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `x${i}: b`).join(' ');
    const documents = [
      `{ ${chain(15)} }`,
      `{ ${chain(16)} }`,
      `{ ${bs(1000)} }`,
      `{ ${bs(1001)} }`,
      `{ ${aliases(50)} }`,
      `{ ${aliases(51)} }`,
      // Arguments, directives and values hold names and colons that are neither fields nor aliases.
      `query Q($v: Int = 3) @x(a: {b: [1 2]}) { a(x: {c: 1, d: [2]}) @skip(if: true) { b } ${bs(998)} }`,
      `query Q($v: Int = 3) @x(a: {b: [1 2]}) { a(x: {c: 1, d: [2]}) @skip(if: true) { b } ${bs(999)} }`,
      // Inline fragments add no depth; a field's selection set does.
      `{ ... on Query { ... @include(if: true) { ${chain(15)} } } }`,
      `{ ... on Query { ... @include(if: true) { ${chain(16)} } } }`,
      // Fields split among fragments count together, and the second operation is the one refused.
      `{ b } query R { ...F ...G } fragment F on Query { ${bs(600)} } fragment G on Query { ${bs(400)} }`,
      `{ b } query R { ...F ...G } fragment F on Query { ${bs(600)} } fragment G on Query { ...F ${bs(401)} }`,
      `{ b } query R { ...F ...G } fragment F on Query { ${bs(600)} } fragment G on Query { ${bs(401)} }`,
      // The first limit crossed answers, in the rule's order.
      `{ ${bs(999)} ${chain(16)} }`,
      `{ ${chain(16).replace('b', bs(1001))} }`,
    ];
    for (const query of documents) expect([query, byCheck(query)]).toEqual([query, byRule(query)]);
    // A fragment's depth below its spread is not known before parsing: the rule still answers.
    const spreadDeep = `{ a { ...F } } fragment F on Query { ${chain(15)} }`;
    expect([byCheck(spreadDeep), byRule(spreadDeep).map(([code]) => code)]).toEqual([
      [],
      ['OPERATION_TOO_DEEP'],
    ]);
  });

  it('lex no more than about the first 1,000 fields of a document with thousands', () => {
    const fields = Array.from({ length: 8990 }, (_, i) => `f${i}`);
    const rejection = checkDocument(`{ ${fields.join(' ')} }`);
    expect(rejection?.code).toBe('OPERATION_TOO_LARGE');
    // Everything after the 1,002nd field (where the rule would stop) may be unreadable: the pass stops before it.
    const broken = checkDocument(`{ ${fields.slice(0, 1002).join(' ')} "unterminated ${fields.join(' ')}`);
    expect(broken?.code).toBe('OPERATION_TOO_LARGE');
  });
});

describe('parse caches', () => {
  it('evict least recently used entries beyond their byte budget', () => {
    const cache = new ByteBoundedCache<string>(10, (_key, value) => value.length);
    cache.set('a', 'xxxx').set('b', 'xxxx');
    expect(cache.get('a')).toBe('xxxx');
    cache.set('c', 'xxxx');
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.bytes]).toEqual([
      'xxxx',
      undefined,
      'xxxx',
      8,
    ]);
    cache.set('huge', 'x'.repeat(11));
    expect([cache.get('huge'), cache.size]).toEqual([undefined, 2]);
    cache.set('a', 'xx');
    expect(cache.bytes).toBe(6);
  });

  it('hold no more than 50 MB however many distinct documents arrive, and no maximum-size ones', () => {
    const { documentCache, errorCache } = boundedParserCaches();
    const document = (i: number, fields: number) =>
      `{ ${Array.from({ length: fields }, (_, k) => `f${i}x${k}`).join(' ')} }`;
    for (let i = 0; i < 200; i++) {
      const query = document(i, 1500);
      documentCache.set(query, parse(query));
      errorCache.set(`${query} }`, new Error('Syntax Error'));
    }
    expect(documentCache.bytes + errorCache.bytes).toBeLessThanOrEqual(CACHE_BUDGET_BYTES);
    expect(documentCache.size).toBeGreaterThan(10);
    const largest = document(999, MAX_TOKENS - 2);
    documentCache.set(largest, parse(largest));
    expect(documentCache.get(largest)).toBeUndefined();
  });

  it('keep validation results only for documents the cache holds', () => {
    const { documentCache, validation } = boundedParserCaches();
    const validate = (documentAST: ReturnType<typeof parse>) => {
      let reused: readonly unknown[] | undefined;
      const after = validation.onValidate({
        params: { documentAST },
        setResult: (errors) => {
          reused = errors;
        },
      });
      return { reused, after };
    };
    const small = '{ __typename }';
    const kept = parse(small);
    documentCache.set(small, kept);
    const first = validate(kept);
    expect(first.reused).toBeUndefined();
    const errors = [new GraphQLError('Cannot query field')];
    first.after?.({ result: errors });
    expect(validate(kept).reused).toBe(errors);

    // Too heavy to cache: validated every time, its result never held.
    const largest = `{ ${Array.from({ length: MAX_TOKENS - 2 }, (_, k) => `g${k}`).join(' ')} }`;
    const uncached = parse(largest);
    documentCache.set(largest, uncached);
    expect(validate(uncached).after).toBeUndefined();
  });
});
