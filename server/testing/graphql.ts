// Test support: a small GraphQL-over-HTTP client for black-box tests against a real workstation.

export interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

export interface GraphqlResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  data: T | null | undefined;
  errors: GraphqlError[] | undefined;
  raw: string;
}

export interface GraphqlRequest {
  token?: string;
  headers?: Record<string, string>;
  variables?: Record<string, unknown>;
}

/** Posts one operation as `application/json` and parses whatever comes back. */
export async function gql<T = Record<string, unknown>>(
  baseUrl: string,
  query: string,
  { token, headers = {}, variables }: GraphqlRequest = {},
): Promise<GraphqlResponse<T>> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  const raw = await response.text();
  let body: { data?: T | null; errors?: GraphqlError[] } = {};
  try {
    body = JSON.parse(raw);
  } catch {
    // Left empty: the test looks at `raw` and the status.
  }
  return { status: response.status, headers: response.headers, data: body.data, errors: body.errors, raw };
}

/** The first error's code, or undefined for a clean answer. */
export function errorCode(response: GraphqlResponse<unknown>): string | undefined {
  return response.errors?.[0]?.extensions?.code;
}

/** The first error as `{ code, message }`, or undefined for a clean answer. */
export function errorOf(response: GraphqlResponse<unknown>) {
  const first = response.errors?.[0];
  return first ? { code: first.extensions?.code, message: first.message } : undefined;
}

/** The answer's root field `field`; a missing one fails with the raw body. */
export function dataOf<T>(response: GraphqlResponse, field: string): T {
  const value = response.data?.[field];
  if (value === undefined || value === null) throw new Error(response.raw);
  return value as T;
}

/** A session token for the account; a refused sign-in fails with the raw answer. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<string> {
  const answer = await gql(
    baseUrl,
    'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
    { variables: { e: email, p: password } },
  );
  return dataOf<{ token: string }>(answer, 'authUser').token;
}
