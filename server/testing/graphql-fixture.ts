// Shared setup for the GraphQL black-box tests: a real workstation with an admin, an editor and a
// viewer signed in, and a service-account bearer.
import type { ServiceAccountAuthenticator } from '../auth/principal.ts';
import { ADMIN_EMAIL, PASSWORD } from './accounts.ts';
import { testClock } from './clock.ts';
import { errorCode, type GraphqlResponse, gql } from './graphql.ts';
import { startTestWorkstation, type TestWorkstation, type TestWorkstationOptions } from './workstation.ts';

export { ADMIN_EMAIL, PASSWORD };

/** A well-formed `fsa_` token the injected authenticator accepts, with OPS_READ. */
export const SA_TOKEN = `fsa_${'a'.repeat(24)}.${'b'.repeat(43)}`;
/** Accepted, but without any scope. */
export const SA_TOKEN_NO_SCOPE = `fsa_${'c'.repeat(24)}.${'d'.repeat(43)}`;

export const testServiceAccounts: ServiceAccountAuthenticator = async (id, secret) => {
  if (id === 'a'.repeat(24) && secret === 'b'.repeat(43))
    return { serviceAccountId: id, scopes: ['ops:read'] };
  if (id === 'c'.repeat(24) && secret === 'd'.repeat(43)) return { serviceAccountId: id, scopes: [] };
  return null;
};

export interface Fixture {
  ws: TestWorkstation;
  url: string;
  clock: ReturnType<typeof testClock>;
  tokens: { admin: string; editor: string; viewer: string };
  ids: { admin: string; editor: string; viewer: string };
  /** Posts an operation; `as` picks the caller. */
  call(
    query: string,
    variables?: Record<string, unknown>,
    as?: 'anonymous' | 'admin' | 'editor' | 'viewer' | 'sa' | { token: string },
    headers?: Record<string, string>,
  ): Promise<GraphqlResponse<Record<string, unknown>>>;
}

export async function signIn(
  url: string,
  email: string,
  password = PASSWORD,
  headers?: Record<string, string>,
) {
  const response = await gql<{ authUser: { token: string } }>(
    url,
    'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }',
    { variables: { e: email, p: password }, headers },
  );
  const token = response.data?.authUser?.token;
  if (!token) throw new Error(`sign-in of ${email} failed: ${response.raw}`);
  return token;
}

export async function startFixture(
  env: Record<string, string> = {},
  options: TestWorkstationOptions = {},
): Promise<Fixture> {
  const clock = testClock();
  const ws = await startTestWorkstation(
    { CREATE_ADMIN: 'true', ADMIN_EMAIL, ADMIN_PASSWORD: PASSWORD, ...env },
    {
      ...options,
      dashboardApi: { clock, serviceAccounts: testServiceAccounts, ...options.dashboardApi },
    },
  );
  const url = ws.urls.lan;
  const admin = await signIn(url, ADMIN_EMAIL);
  const create = async (email: string, role: string) => {
    // Distinct registration times keep "oldest first" orders deterministic.
    clock.advance(1000);
    const response = await gql<{ adminCreateUser: { _id: string } }>(
      url,
      'mutation($e: String!, $p: String!, $r: UserRole!) { adminCreateUser(email: $e, password: $p, role: $r) { _id } }',
      { token: admin, variables: { e: email, p: PASSWORD, r: role } },
    );
    if (errorCode(response)) throw new Error(response.raw);
    return response.data?.adminCreateUser._id ?? '';
  };
  const editorId = await create('editor@towpath.test', 'EDITOR');
  const viewerId = await create('viewer@towpath.test', 'VIEWER');
  const tokens = {
    admin,
    editor: await signIn(url, 'editor@towpath.test'),
    viewer: await signIn(url, 'viewer@towpath.test'),
  };
  const me = await gql<{ me: { _id: string } }>(url, '{ me { _id } }', { token: admin });
  const ids = { admin: me.data?.me._id ?? '', editor: editorId, viewer: viewerId };
  return {
    ws,
    url,
    clock,
    tokens,
    ids,
    call: (query, variables, as = 'anonymous', headers) => {
      const token =
        as === 'anonymous'
          ? undefined
          : as === 'sa'
            ? SA_TOKEN
            : typeof as === 'object'
              ? as.token
              : tokens[as];
      return gql(url, query, { token, variables, headers });
    },
  };
}
