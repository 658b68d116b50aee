// Dashboards over real HTTP with a real SQLite file (spec §8, §17): every operation for every caller,
// exact errors, per-caller projection, the revision guard and document history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, signIn, startFixture } from '../graphql/fixture.test-support.ts';
import type { GraphqlResponse } from '../testing/graphql.ts';

const FIELDS =
  '_id title version image datasources columns width panes settings visibility shareToken shareTokenVersion documentRevision user acl { userId accessLevel grantedBy } isOwner canEdit canManageSharing';

const CREATE = `mutation($input: CreateDashboardInput!) { createDashboard(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateDashboardInput!) { updateDashboard(_id: $id, input: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { dashboard(_id: $id) { ${FIELDS} } }`;

type Caller = 'anonymous' | 'admin' | 'editor' | 'viewer' | 'sa' | { token: string };
type View = Record<string, unknown> & { _id: string; documentRevision: number; shareToken: string | null };

let f: Fixture;
let editor2: { token: string };
let editor2Id: string;

function error(response: GraphqlResponse) {
  const first = response.errors?.[0];
  return first ? { code: first.extensions?.code, message: first.message } : undefined;
}

async function create(as: Caller, input: Record<string, unknown> = {}): Promise<View> {
  const response = await f.call(
    CREATE,
    { input: { title: 'Winder', version: 'towpath 0.1.0', ...input } },
    as,
  );
  if (response.errors) throw new Error(response.raw);
  return response.data?.createDashboard as View;
}

beforeAll(async () => {
  f = await startFixture();
  const made = await f.call(
    'mutation { adminCreateUser(email: "editor2@towpath.test", password: "Str0ng-password!", role: EDITOR) { _id } }',
    undefined,
    'admin',
  );
  editor2Id = (made.data?.adminCreateUser as { _id: string } | undefined)?._id ?? '';
  editor2 = { token: await signIn(f.url, 'editor2@towpath.test') };
});

afterAll(() => f?.ws.dispose());

describe('createDashboard', () => {
  it('fills the defaults and answers the owner with the whole envelope', async () => {
    const dashboard = await create('editor', { title: '  Winder  ' });
    expect(dashboard).toMatchObject({
      title: 'Winder',
      image: null,
      datasources: [],
      columns: 3,
      width: 'md',
      panes: [],
      settings: {},
      visibility: 'PRIVATE',
      shareToken: null,
      shareTokenVersion: 1,
      documentRevision: 1,
      user: f.ids.editor,
      acl: [],
      isOwner: true,
      canEdit: true,
      canManageSharing: true,
    });
    expect(dashboard._id).toMatch(/^[0-9a-f]{24}$/);
  });

  it.each([
    ['anonymous', 'UNAUTHENTICATED', 'You must be logged in to perform this action'],
    ['sa', 'UNAUTHENTICATED', 'You must be logged in to perform this action'],
    ['viewer', 'FORBIDDEN', 'Editor role required'],
  ] as const)('refuses %s', async (as, code, message) => {
    const response = await f.call(CREATE, { input: { title: 'x', version: '1' } }, as);
    expect(error(response)).toEqual({ code, message });
    expect(response.data).toBeNull();
  });

  it('refuses publishing by editors who may not publish, and silently keeps the default private', async () => {
    const response = await f.call(
      CREATE,
      { input: { title: 'x', version: '1', visibility: 'LINK' } },
      'editor',
    );
    expect(error(response)).toEqual({
      code: 'FORBIDDEN',
      message: 'Editors are not allowed to publish dashboards',
    });
    await f.call(
      'mutation { setAuthPolicy(dashboardDefaultVisibility: PUBLIC) { executionMode } }',
      undefined,
      'admin',
    );
    try {
      expect((await create('editor')).visibility).toBe('PRIVATE');
      const published = await create('admin');
      expect(published.visibility).toBe('PUBLIC');
      expect(published.shareToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    } finally {
      await f.call(
        'mutation { setAuthPolicy(dashboardDefaultVisibility: PRIVATE) { executionMode } }',
        undefined,
        'admin',
      );
    }
  });
});
