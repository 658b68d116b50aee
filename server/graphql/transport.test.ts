// GraphQL over HTTP on the LAN door (§2, §4): status codes, request limits, masking, health.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, gql } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f?.ws.dispose());

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${f.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('GraphQL over HTTP', () => {
  it('serves queries over GET and refuses mutations over GET with 405', async () => {
    const query = await fetch(
      `${f.url}/graphql?query=${encodeURIComponent('{ publicAuthPolicy { registrationMode } }')}`,
    );
    expect(query.status).toBe(200);
    expect(await query.json()).toEqual({ data: { publicAuthPolicy: { registrationMode: 'DISABLED' } } });
    const mutation = await fetch(
      `${f.url}/graphql?query=${encodeURIComponent('mutation { requestPasswordReset(email: "a@b.cd") }')}`,
    );
    expect(mutation.status).toBe(405);
  });

  it('answers validation errors with 200 for application/json and 400 for graphql-response+json', async () => {
    const json = await post(JSON.stringify({ query: '{ nope }' }), { accept: 'application/json' });
    expect(json.status).toBe(200);
    const modern = await post(JSON.stringify({ query: '{ nope }' }), {
      accept: 'application/graphql-response+json',
    });
    expect(modern.status).toBe(400);
    expect(modern.headers.get('content-type')).toMatch(/application\/graphql-response\+json/);
  });

  it('rejects bad JSON and batched requests without executing anything', async () => {
    const bad = await post('{"query": ', { accept: 'application/graphql-response+json' });
    expect(bad.status).toBe(400);
    const batch = await post(JSON.stringify([{ query: '{ me { _id } }' }, { query: '{ me { _id } }' }]));
    expect(batch.status).toBeGreaterThanOrEqual(400);
    expect(batch.status).toBeLessThan(500);
  });

  it('refuses bodies over 5 MiB with 413, also when chunked', async () => {
    const big = JSON.stringify({ query: `{ me { _id } } # ${'x'.repeat(5 * 1024 * 1024)}` });
    const response = await post(big);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Request body too large', extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
    });
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${f.url}/graphql`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/graphql',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const chunk = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 6; i += 1) req.write(chunk);
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('accepts a body just under the limit', async () => {
    // The query text itself is limited to 100,000 bytes; variables carry the bulk of a big body.
    const padding = 'x'.repeat(4 * 1024 * 1024);
    const response = await post(
      JSON.stringify({ query: '{ publicAuthPolicy { editorCanPublish } }', variables: { padding } }),
    );
    expect(response.status).toBe(200);
  });

  it('limits depth, aliases and fields, fragments expanded', async () => {
    // Depth through the introspection schema: __schema { types { fields { type { ofType ... } } } }.
    const deep = (levels: number) => {
      let inner = 'name';
      for (let i = 0; i < levels - 5; i += 1) inner = `ofType { ${inner} }`;
      return `{ __schema { types { fields { type { ${inner} } } } } }`;
    };
    expect((await gql(f.url, deep(15))).errors).toBeUndefined();
    const tooDeep = await gql(f.url, deep(16));
    expect(tooDeep.errors?.[0]).toMatchObject({
      message: 'Operation depth exceeds 15',
      extensions: { code: 'OPERATION_TOO_DEEP' },
    });
    expect(tooDeep.data).toBeUndefined();

    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    expect((await gql(f.url, aliases(50))).errors).toBeUndefined();
    expect(errorCode(await gql(f.url, aliases(51)))).toBe('OPERATION_TOO_MANY_ALIASES');

    // 11 spreads of a 100-field fragment: 1100 fields after expansion, no aliases.
    const fields = Array.from({ length: 100 }, () => '__typename').join(' ');
    const spreads = Array.from({ length: 11 }, () => '...F').join(' ');
    const large = await gql(f.url, `{ ${spreads} } fragment F on Query { ${fields} }`);
    expect(large.errors?.[0]).toMatchObject({
      message: 'Operation has more than 1000 fields',
      extensions: { code: 'OPERATION_TOO_LARGE' },
    });
  });

  it('has a health route, no landing page and no GraphiQL by default', async () => {
    const health = await fetch(`${f.url}/health`);
    expect(health.status).toBe(200);
    const page = await fetch(`${f.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/graphiql/i);
  });

  it('sends no CORS headers unless origins are configured', async () => {
    const response = await post(JSON.stringify({ query: '{ __typename }' }), {
      origin: 'http://evil.example',
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
