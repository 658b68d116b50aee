// Dashboards over real HTTP with a real SQLite file (spec §8, §17): every operation for every caller,
// exact errors, per-caller projection, the revision guard and document history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from '../testing/graphql.ts';
import { type Fixture, signIn, startFixture } from '../testing/graphql-fixture.ts';

const FIELDS =
  '_id title version image datasources columns width panes settings visibility shareToken shareTokenVersion documentRevision user acl { userId accessLevel grantedBy } isOwner canEdit canManageSharing';

const CREATE = `mutation($input: CreateDashboardInput!) { createDashboard(dashboard: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateDashboardInput!) { updateDashboard(_id: $id, dashboard: $input) { ${FIELDS} } }`;
const GET = `query($id: ID!) { dashboard(_id: $id) { ${FIELDS} } }`;

type Caller = 'anonymous' | 'admin' | 'editor' | 'viewer' | 'sa' | { token: string };
type View = Record<string, unknown> & { _id: string; documentRevision: number; shareToken: string | null };

let f: Fixture;
let editor2: { token: string };
let editor2Id: string;
let outsider: { token: string };

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
  await f.call(
    'mutation { adminCreateUser(email: "outsider@towpath.test", password: "Str0ng-password!", role: VIEWER) { _id } }',
    undefined,
    'admin',
  );
  outsider = { token: await signIn(f.url, 'outsider@towpath.test') };
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

  it('refuses a missing dashboard argument, which the contract lets be null, as BAD_USER_INPUT', async () => {
    for (const query of [
      'mutation { createDashboard { _id } }',
      'mutation { createDashboard(dashboard: null) { _id } }',
    ])
      expect(errorOf(await f.call(query, undefined, 'editor'))).toEqual({
        code: 'BAD_USER_INPUT',
        message: 'dashboard is required',
      });
    // The role rule answers first.
    expect(errorOf(await f.call('mutation { createDashboard { _id } }', undefined, 'viewer'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Editor role required',
    });
  });

  it('hands a null datasource or pane to the document rules instead of refusing the variables', async () => {
    const answer = (input: Record<string, unknown>) =>
      f.call(CREATE, { input: { title: 'x', version: '1', ...input } }, 'editor');
    const nullSource = await answer({ datasources: [null] });
    expect(nullSource.status).toBe(200);
    expect(errorOf(nullSource)).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'Invalid datasource at index 0: entry must be an object',
    });
    const nullPane = await answer({ panes: [{ id: 'a', layout: { x: 0, y: 0, w: 1, h: 1 } }, null] });
    expect(nullPane.status).toBe(200);
    expect(errorOf(nullPane)).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'Invalid pane at index 1: pane must be an object',
    });
  });

  it.each([
    ['anonymous', 'UNAUTHENTICATED', 'You must be logged in to perform this action'],
    ['sa', 'UNAUTHENTICATED', 'You must be logged in to perform this action'],
    ['viewer', 'FORBIDDEN', 'Editor role required'],
  ] as const)('refuses %s', async (as, code, message) => {
    const response = await f.call(CREATE, { input: { title: 'x', version: '1' } }, as);
    expect(errorOf(response)).toEqual({ code, message });
    expect(response.data).toBeNull();
  });

  it('refuses publishing by editors who may not publish, and silently keeps the default private', async () => {
    const response = await f.call(
      CREATE,
      { input: { title: 'x', version: '1', visibility: 'LINK' } },
      'editor',
    );
    expect(errorOf(response)).toEqual({
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

const U = { code: 'UNAUTHENTICATED', message: 'You must be logged in to perform this action' };
const NF = { code: 'NOT_FOUND', message: 'Dashboard not found' };
const F = (message: string) => ({ code: 'FORBIDDEN', message });
const EDIT = F('Not allowed to edit this dashboard');
const SHARE = F('Not allowed to manage sharing of this dashboard');
const DELETE = F('Not allowed to delete this dashboard');
const TRANSFER = F('Not allowed to transfer this dashboard');
const OK = 'ok';

/** A private dashboard of the editor shared with the viewer (VIEWER) and editor2 (EDITOR). */
async function sharedPrivate(): Promise<View> {
  const dashboard = await create('editor');
  for (const [email, level] of [
    ['viewer@towpath.test', 'VIEWER'],
    ['editor2@towpath.test', 'EDITOR'],
  ]) {
    // Grants a second apart, so "oldest grant first" has one answer.
    f.clock.advance(1000);
    await f.call(
      'mutation($id: ID!, $e: String!, $l: DashboardAccessLevel!) { upsertDashboardAccess(_id: $id, email: $e, accessLevel: $l) { _id } }',
      { id: dashboard._id, e: email, l: level },
      'editor',
    );
  }
  return dashboard;
}

const callers = () =>
  ({
    anonymous: 'anonymous',
    sa: 'sa',
    outsider,
    viewer: 'viewer',
    editor: 'editor',
    editor2,
    admin: 'admin',
  }) as Record<string, Caller>;

type Expectation = typeof OK | { code: string; message: string };

const MATRIX: {
  name: string;
  query: string;
  variables?: (id: string) => Record<string, unknown>;
  expect: Record<string, Expectation>;
}[] = [
  {
    name: 'dashboard',
    query: 'query($id: ID!) { dashboard(_id: $id) { _id } }',
    expect: { anonymous: NF, sa: NF, outsider: NF, viewer: OK, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'dashboardCollaborators',
    query: 'query($id: ID!) { dashboardCollaborators(_id: $id) { userId } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: SHARE, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'dashboardRevisions',
    query: 'query($id: ID!) { dashboardRevisions(_id: $id) { documentRevision } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: EDIT, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'updateDashboard',
    query:
      'mutation($id: ID!) { updateDashboard(_id: $id, dashboard: { columns: 4, expectedDocumentRevision: 1 }) { documentRevision } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: EDIT, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'setDashboardVisibility',
    query: 'mutation($id: ID!) { setDashboardVisibility(_id: $id, visibility: PRIVATE) { _id } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: SHARE, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'rotateDashboardShareToken',
    query: 'mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { _id } }',
    expect: {
      anonymous: U,
      sa: U,
      outsider: NF,
      viewer: SHARE,
      editor: { code: 'BAD_USER_INPUT', message: 'Private dashboards have no share token' },
      editor2: { code: 'BAD_USER_INPUT', message: 'Private dashboards have no share token' },
      admin: { code: 'BAD_USER_INPUT', message: 'Private dashboards have no share token' },
    },
  },
  {
    name: 'upsertDashboardAccess',
    query:
      'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "viewer@towpath.test", accessLevel: VIEWER) { _id } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: SHARE, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'revokeDashboardAccess',
    query: 'mutation($id: ID!, $u: ID!) { revokeDashboardAccess(_id: $id, userId: $u) { _id } }',
    variables: (id) => ({ id, u: '000000000000000000000000' }),
    expect: { anonymous: U, sa: U, outsider: NF, viewer: SHARE, editor: OK, editor2: OK, admin: OK },
  },
  {
    name: 'transferDashboardOwnership',
    query: 'mutation($id: ID!, $u: ID!) { transferDashboardOwnership(_id: $id, newOwnerUserId: $u) { _id } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: TRANSFER, editor2: TRANSFER },
  },
  {
    name: 'deleteDashboard',
    query: 'mutation($id: ID!) { deleteDashboard(_id: $id) { _id } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: DELETE, editor2: DELETE, editor: OK },
  },
  {
    name: 'restoreDashboardRevision',
    query:
      'mutation($id: ID!) { restoreDashboardRevision(_id: $id, documentRevision: 1, expectedDocumentRevision: 1) { documentRevision } }',
    expect: { anonymous: U, sa: U, outsider: NF, viewer: EDIT, editor: OK },
  },
];

describe('the permission matrix (§17)', () => {
  for (const row of MATRIX) {
    it(`${row.name} answers every caller as §17 says`, async () => {
      const who = callers();
      for (const [caller, expected] of Object.entries(row.expect)) {
        // A fresh dashboard per caller, so one caller's write never changes another's answer.
        const dashboard = await sharedPrivate();
        const variables = row.variables ? row.variables(dashboard._id) : { id: dashboard._id };
        if (row.name === 'transferDashboardOwnership') variables.u = editor2Id;
        const response = await f.call(row.query, variables, who[caller]);
        if (expected === OK) expect(response.errors, `${row.name} as ${caller}`).toBeUndefined();
        else expect(errorOf(response), `${row.name} as ${caller}`).toEqual(expected);
      }
    });
  }

  it('dashboards lists owned, shared and (when enabled) public ones; admins see all; others are refused', async () => {
    const mine = await sharedPrivate();
    const published = await create('admin', { visibility: 'PUBLIC' });
    const link = await create('admin', { visibility: 'LINK' });
    const list = async (as: Caller) => {
      const response = await f.call('{ dashboards { _id } }', undefined, as);
      return {
        error: errorOf(response),
        ids: (response.data?.dashboards as { _id: string }[] | undefined)?.map((d) => d._id),
      };
    };
    expect((await list('anonymous')).error).toEqual(U);
    expect((await list('sa')).error).toEqual(U);
    const viewerIds = (await list('viewer')).ids ?? [];
    expect(viewerIds).toContain(mine._id);
    expect(viewerIds).not.toContain(published._id);
    expect((await list(outsider)).ids).toEqual([]);
    await f.call(
      'mutation { setAuthPolicy(dashboardPublicListingEnabled: true) { executionMode } }',
      undefined,
      'admin',
    );
    try {
      expect((await list(outsider)).ids).toContain(published._id);
      expect((await list(outsider)).ids).not.toContain(link._id);
    } finally {
      await f.call(
        'mutation { setAuthPolicy(dashboardPublicListingEnabled: false) { executionMode } }',
        undefined,
        'admin',
      );
    }
    const all = (await list('admin')).ids ?? [];
    expect(all).toEqual(expect.arrayContaining([mine._id, published._id, link._id]));
  });

  it('adminDatasourceDiagnostics: admins and DATASOURCE_DIAGNOSTICS_READ only', async () => {
    const query = '{ adminDatasourceDiagnostics { totalDashboards typeCounts { type count } } }';
    expect(errorOf(await f.call(query, undefined, 'anonymous'))).toEqual(U);
    expect(errorOf(await f.call(query, undefined, 'viewer'))).toEqual(F('Admin role required'));
    expect(errorOf(await f.call(query, undefined, 'editor'))).toEqual(F('Admin role required'));
    expect(errorOf(await f.call(query, undefined, 'sa'))).toEqual(
      F('Service account lacks scope DATASOURCE_DIAGNOSTICS_READ'),
    );
    const response = await f.call(query, undefined, 'admin');
    expect(response.errors).toBeUndefined();
  });
});

describe('projection (§8.2)', () => {
  it('shows token, ACL and owner only to callers who may manage sharing', async () => {
    const dashboard = await sharedPrivate();
    await f.call(
      'mutation($id: ID!) { setDashboardVisibility(_id: $id, visibility: PUBLIC) { _id } }',
      { id: dashboard._id },
      'admin',
    );
    const as = async (who: Caller) => (await f.call(GET, { id: dashboard._id }, who)).data?.dashboard as View;
    for (const who of ['anonymous', 'sa', 'viewer', outsider] as Caller[]) {
      expect(await as(who)).toMatchObject({
        shareToken: null,
        acl: [],
        user: null,
        canEdit: false,
        canManageSharing: false,
      });
    }
    const owner = await as('editor');
    expect(owner).toMatchObject({ user: f.ids.editor, isOwner: true, canEdit: true, visibility: 'PUBLIC' });
    expect(owner.shareToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((owner.acl as { userId: string }[]).map((entry) => entry.userId)).toEqual([
      f.ids.viewer,
      editor2Id,
    ]);
    expect(await as(editor2)).toMatchObject({ isOwner: false, canEdit: true, shareToken: owner.shareToken });
    const byToken = await f.call(
      `query($t: String!) { dashboardByShareToken(shareToken: $t) { ${FIELDS} } }`,
      { t: owner.shareToken },
    );
    expect(byToken.data?.dashboardByShareToken).toMatchObject({
      _id: dashboard._id,
      shareToken: null,
      acl: [],
    });
  });
});

describe('dashboards list projection', () => {
  it('projects each listed dashboard for the caller exactly as `dashboard` does, newest first', async () => {
    const shared = await sharedPrivate();
    f.clock.advance(1000);
    const published = await create('admin', {
      visibility: 'PUBLIC',
      datasources: [{ id: 'winder', title: 'Winder', type: 'machine' }],
      panes: [
        {
          id: 'p',
          layout: { x: 0, y: 0, w: 1, h: 2 },
          widgets: [{ id: 'w', type: 'gauge', settings: { valuePath: 'Winder.percent' } }],
        },
      ],
      settings: { theme: 'dark' },
    });
    f.clock.advance(1000);
    const own = await create('editor', { columns: 5 });
    const fields = `${FIELDS} acl { grantedAt } createdAt updatedAt`;
    await f.call(
      'mutation { setAuthPolicy(dashboardPublicListingEnabled: true) { executionMode } }',
      undefined,
      'admin',
    );
    try {
      const ours = [own._id, published._id, shared._id];
      const expectations: [Caller, string[]][] = [
        ['admin', ours],
        ['editor', ours],
        [editor2, [published._id, shared._id]],
        ['viewer', [published._id, shared._id]],
        [outsider, [published._id]],
      ];
      for (const [who, ids] of expectations) {
        const response = await f.call(`{ dashboards { ${fields} } }`, undefined, who);
        expect(response.errors).toBeUndefined();
        const listed = ((response.data?.dashboards ?? []) as View[]).filter((view) =>
          ours.includes(view._id),
        );
        expect(listed.map((view) => view._id)).toEqual(ids);
        for (const view of listed) {
          const single = await f.call(
            `query($id: ID!) { dashboard(_id: $id) { ${fields} } }`,
            { id: view._id },
            who,
          );
          expect(view).toEqual(single.data?.dashboard);
        }
      }
    } finally {
      await f.call(
        'mutation { setAuthPolicy(dashboardPublicListingEnabled: false) { executionMode } }',
        undefined,
        'admin',
      );
    }
  });
});

const updateAs = (as: Caller, id: string, input: Record<string, unknown>) =>
  f.call(UPDATE, { id, input }, as);

describe('updateDashboard (§8.5)', () => {
  it('applies the update rules in order with their exact messages', async () => {
    const { _id: id } = await create('editor');
    const bad = (message: string) => ({ code: 'BAD_USER_INPUT', message });
    expect(errorOf(await updateAs('editor', id, { expectedDocumentRevision: 1 }))).toEqual(
      bad('No fields to update'),
    );
    // Without a dashboard argument (nullable in the contract) there is nothing to update either.
    for (const query of [
      'mutation($id: ID!) { updateDashboard(_id: $id) { _id } }',
      'mutation($id: ID!) { updateDashboard(_id: $id, dashboard: null) { _id } }',
    ])
      expect(errorOf(await f.call(query, { id }, 'editor'))).toEqual(bad('No fields to update'));
    expect(
      errorOf(await updateAs('editor', id, { datasources: [null], expectedDocumentRevision: 1 })),
    ).toEqual(bad('Invalid datasource at index 0: entry must be an object'));
    expect(errorOf(await updateAs('editor', id, { panes: [null], expectedDocumentRevision: 1 }))).toEqual(
      bad('Invalid pane at index 0: pane must be an object'),
    );
    expect(errorOf(await updateAs('editor', id, { visibility: 'PRIVATE', title: 'x' }))).toEqual(
      bad('Change visibility with setDashboardVisibility, not together with document fields'),
    );
    const required = bad(
      'expectedDocumentRevision is required for document updates and must be a positive integer',
    );
    expect(errorOf(await updateAs('editor', id, { title: 'x' }))).toEqual(required);
    expect(errorOf(await updateAs('editor', id, { title: 'x', expectedDocumentRevision: 0 }))).toEqual(
      required,
    );
    expect(errorOf(await updateAs('editor', id, { title: null, expectedDocumentRevision: 1 }))).toEqual(
      bad('title must be 1–200 characters'),
    );
    expect(errorOf(await updateAs('editor', id, { columns: null, expectedDocumentRevision: 1 }))).toEqual(
      bad('columns must be an integer from 1 to 12'),
    );
    const first = await updateAs('editor', id, { image: null, title: ' Same ', expectedDocumentRevision: 1 });
    expect(first.data?.updateDashboard).toMatchObject({ title: 'Same', image: null, documentRevision: 2 });
    // Identical values are still a write.
    const again = await updateAs('editor', id, { title: 'Same', expectedDocumentRevision: 2 });
    expect(again.data?.updateDashboard).toMatchObject({ documentRevision: 3 });
    const stale = await updateAs('editor', id, { title: 'Late', expectedDocumentRevision: 2 });
    expect(stale.errors?.[0]).toMatchObject({
      message: 'Dashboard was changed since you loaded it. Reload it and apply your changes again.',
      extensions: { code: 'CONFLICT', currentRevision: 3 },
    });
    // Visibility only = setDashboardVisibility, revision untouched.
    const envelope = await updateAs('editor', id, { visibility: 'PRIVATE', expectedDocumentRevision: 99 });
    expect(envelope.data?.updateDashboard).toMatchObject({ documentRevision: 3 });
  });

  it('lets exactly one of 16 concurrent writers holding the same revision win, 20 times over', async () => {
    const { _id: id } = await create('editor');
    let revision = 1;
    for (let round = 0; round < 20; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          updateAs(i % 2 === 0 ? 'editor' : editor2, id, {
            title: `r${round}w${i}`,
            expectedDocumentRevision: revision,
          }),
        ),
      );
      // editor2 cannot see this dashboard: its writes answer NOT_FOUND, never win.
      const won = answers.filter((answer) => !answer.errors);
      const conflicts = answers.filter((answer) => answer.errors?.[0]?.extensions?.code === 'CONFLICT');
      expect(won).toHaveLength(1);
      expect(conflicts).toHaveLength(7);
      for (const conflict of conflicts)
        expect(conflict.errors?.[0]?.extensions?.currentRevision).toBe(revision + 1);
      revision += 1;
      expect(won[0]?.data?.updateDashboard).toMatchObject({ documentRevision: revision });
    }
    const final = await f.call(GET, { id }, 'editor');
    expect(final.data?.dashboard).toMatchObject({ documentRevision: 21 });
  });
});

describe('sharing, ACL and ownership (§8.6, §8.7)', () => {
  it('changes visibility and rotates tokens with one revocation event per version', async () => {
    const { _id: id } = await create('editor');
    const setAs = (as: Caller, v: string) =>
      f.call(
        `mutation($id: ID!, $v: DashboardVisibility!) { setDashboardVisibility(_id: $id, visibility: $v) { ${FIELDS} } }`,
        { id, v },
        as,
      );
    expect(errorOf(await setAs('editor', 'LINK'))).toEqual(
      F('Editors are not allowed to publish dashboards'),
    );
    const link = (await setAs('admin', 'LINK')).data?.setDashboardVisibility as View;
    expect(link).toMatchObject({ visibility: 'LINK', shareTokenVersion: 2, documentRevision: 1 });
    const shared = (await setAs('admin', 'PUBLIC')).data?.setDashboardVisibility as View;
    expect(shared.shareToken).toBe(link.shareToken);
    const unchanged = (await setAs('admin', 'PUBLIC')).data?.setDashboardVisibility as View;
    expect(unchanged.shareTokenVersion).toBe(3);
    const rotated = (
      await f.call(
        `mutation($id: ID!) { rotateDashboardShareToken(_id: $id) { ${FIELDS} } }`,
        { id },
        'editor',
      )
    ).data?.rotateDashboardShareToken as View;
    expect(rotated.shareToken).not.toBe(link.shareToken);
    expect(rotated.shareTokenVersion).toBe(4);
    const old = await f.call('query($t: String!) { dashboardByShareToken(shareToken: $t) { _id } }', {
      t: link.shareToken,
    });
    expect(errorOf(old)).toEqual(NF);
    const privateAgain = (await setAs('editor', 'PRIVATE')).data?.setDashboardVisibility as View;
    expect(privateAgain).toMatchObject({ shareToken: null, shareTokenVersion: 5, documentRevision: 1 });
    const events = f.ws.dashboardApi.services.store.dashboards.revocationEventsOf(id);
    expect(events.map((event) => [event.shareTokenVersion, event.reason])).toEqual([
      [2, 'visibility_changed'],
      [3, 'visibility_changed'],
      [4, 'share_token_rotated'],
      [5, 'visibility_changed'],
    ]);
  });

  it('grants, lists, revokes and transfers', async () => {
    const { _id: id } = await create('editor');
    const upsert = (email: string, level = 'VIEWER') =>
      f.call(
        'mutation($id: ID!, $e: String!, $l: DashboardAccessLevel!) { upsertDashboardAccess(_id: $id, email: $e, accessLevel: $l) { acl { userId accessLevel grantedBy } } }',
        { id, e: email, l: level },
        'editor',
      );
    expect(errorOf(await upsert('nobody@towpath.test'))).toEqual({
      code: 'NOT_FOUND',
      message: 'User not found',
    });
    // A malformed address is the caller's input error, not an unknown user (§1).
    for (const malformed of ['not-an-email', 'a@b', 'two@@towpath.test'])
      expect(errorOf(await upsert(malformed))).toEqual({
        code: 'BAD_USER_INPUT',
        message: 'Invalid email address',
      });
    // Still after the capability check (§4's precedence): who may not share learns nothing more.
    expect(
      errorOf(
        await f.call(
          'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "junk", accessLevel: VIEWER) { _id } }',
          { id },
          'viewer',
        ),
      ),
    ).toEqual(NF);
    expect(errorOf(await upsert('editor@towpath.test'))).toEqual(
      F('Owner access is managed through ownership only'),
    );
    await upsert(' Viewer@Towpath.test ');
    f.clock.advance(1000);
    const granted = await upsert('editor2@towpath.test', 'EDITOR');
    expect(granted.data?.upsertDashboardAccess).toEqual({
      acl: [
        { userId: f.ids.viewer, accessLevel: 'VIEWER', grantedBy: f.ids.editor },
        { userId: editor2Id, accessLevel: 'EDITOR', grantedBy: f.ids.editor },
      ],
    });
    const collaborators = await f.call(
      'query($id: ID!) { dashboardCollaborators(_id: $id) { email accessLevel isOwner } }',
      { id },
      'editor',
    );
    expect(collaborators.data?.dashboardCollaborators).toEqual([
      { email: 'editor@towpath.test', accessLevel: 'EDITOR', isOwner: true },
      { email: 'editor2@towpath.test', accessLevel: 'EDITOR', isOwner: false },
      { email: 'viewer@towpath.test', accessLevel: 'VIEWER', isOwner: false },
    ]);
    const transfer = (userId: string, as: Caller = 'editor') =>
      f.call(
        `mutation($id: ID!, $u: ID!) { transferDashboardOwnership(_id: $id, newOwnerUserId: $u) { ${FIELDS} } }`,
        { id, u: userId },
        as,
      );
    expect(errorOf(await transfer(f.ids.viewer))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'New owner must be an editor or admin',
    });
    expect(errorOf(await transfer('000000000000000000000000'))).toEqual({
      code: 'NOT_FOUND',
      message: 'User not found',
    });
    f.clock.advance(1000);
    const moved = (await transfer(editor2Id)).data?.transferDashboardOwnership as View;
    expect(moved).toMatchObject({ isOwner: false, canEdit: true, user: editor2Id, documentRevision: 1 });
    expect(moved.acl).toEqual([
      { userId: f.ids.viewer, accessLevel: 'VIEWER', grantedBy: f.ids.editor },
      { userId: f.ids.editor, accessLevel: 'EDITOR', grantedBy: f.ids.editor },
    ]);
    expect(errorOf(await transfer(f.ids.editor))).toEqual(TRANSFER);
    const revoke = await f.call(
      'mutation($id: ID!, $u: ID!) { revokeDashboardAccess(_id: $id, userId: $u) { acl { userId } } }',
      { id, u: f.ids.viewer },
      editor2,
    );
    expect(revoke.data?.revokeDashboardAccess).toEqual({ acl: [{ userId: f.ids.editor }] });
    expect(errorOf(await f.call(GET, { id }, 'viewer'))).toEqual(NF);
  });

  it('deletes, answering with the prior state and revoking a shared token', async () => {
    const { _id: id } = await create('admin', { visibility: 'LINK' });
    const deleted = await f.call(
      `mutation($id: ID!) { deleteDashboard(_id: $id) { ${FIELDS} } }`,
      { id },
      'admin',
    );
    expect(deleted.data?.deleteDashboard).toMatchObject({
      _id: id,
      visibility: 'LINK',
      shareTokenVersion: 1,
    });
    expect(errorOf(await f.call(GET, { id }, 'admin'))).toEqual(NF);
    const events = f.ws.dashboardApi.services.store.dashboards.revocationEventsOf(id);
    expect(events.map((event) => [event.shareTokenVersion, event.reason])).toEqual([
      [2, 'dashboard_deleted'],
    ]);
  });
});

describe('SAFE and TRUSTED (§8.9)', () => {
  it('refuses new trusted content in SAFE mode, keeps what is there, allows removal', async () => {
    const trusted = { settings: { script: 'alert(1)' } };
    expect(
      errorOf(await f.call(CREATE, { input: { title: 't', version: '1', ...trusted } }, 'admin')),
    ).toEqual(F('Trusted content is not allowed in SAFE execution mode'));
    await f.call('mutation { setAuthPolicy(executionMode: TRUSTED) { executionMode } }', undefined, 'admin');
    const dashboard = await create('editor', trusted);
    await f.call('mutation { setAuthPolicy(executionMode: SAFE) { executionMode } }', undefined, 'admin');
    const kept = await updateAs('editor', dashboard._id, { title: 'renamed', expectedDocumentRevision: 1 });
    expect(kept.errors).toBeUndefined();
    const added = await updateAs('editor', dashboard._id, {
      settings: { script: 'alert(1)', style: 'body{}' },
      expectedDocumentRevision: 2,
    });
    expect(errorOf(added)).toEqual(F('Trusted content is not allowed in SAFE execution mode'));
    const removed = await updateAs('editor', dashboard._id, { settings: {}, expectedDocumentRevision: 2 });
    expect(removed.errors).toBeUndefined();
    const restore = await f.call(
      'mutation($id: ID!) { restoreDashboardRevision(_id: $id, documentRevision: 1, expectedDocumentRevision: 3) { documentRevision } }',
      { id: dashboard._id },
      'editor',
    );
    expect(errorOf(restore)).toEqual(F('Trusted content is not allowed in SAFE execution mode'));
  });
});

describe('document history', () => {
  it('keeps 50 revisions newest first, restores as a new revision, refuses stale and pruned ones', async () => {
    const { _id: id } = await create('editor', { title: 'v1' });
    for (let revision = 1; revision < 55; revision += 1)
      await updateAs('editor', id, { title: `v${revision + 1}`, expectedDocumentRevision: revision });
    const listed = await f.call(
      'query($id: ID!) { dashboardRevisions(_id: $id) { documentRevision authorUserId title document } }',
      { id },
      'editor',
    );
    const revisions = listed.data?.dashboardRevisions as {
      documentRevision: number;
      title: string;
      document: Record<string, unknown>;
    }[];
    expect(revisions).toHaveLength(50);
    expect(revisions.map((r) => r.documentRevision)).toEqual(Array.from({ length: 50 }, (_, i) => 55 - i));
    expect(revisions[0]).toMatchObject({ title: 'v55', authorUserId: f.ids.editor });
    expect(Object.keys(revisions[0]?.document ?? {})).toEqual([
      'title',
      'version',
      'image',
      'datasources',
      'columns',
      'width',
      'panes',
      'settings',
    ]);
    const restore = (documentRevision: number, expected: number) =>
      f.call(
        'mutation($id: ID!, $r: Int!, $e: Int!) { restoreDashboardRevision(_id: $id, documentRevision: $r, expectedDocumentRevision: $e) { title documentRevision } }',
        { id, r: documentRevision, e: expected },
        'editor',
      );
    expect(errorOf(await restore(5, 55))).toEqual({
      code: 'NOT_FOUND',
      message: 'Dashboard revision not found',
    });
    expect((await restore(10, 54)).errors?.[0]).toMatchObject({
      extensions: { code: 'CONFLICT', currentRevision: 55 },
    });
    expect((await restore(10, 55)).data?.restoreDashboardRevision).toEqual({
      title: 'v10',
      documentRevision: 56,
    });
    const audit = await f.call(
      '{ adminAuditEvents(actionPrefix: "dashboard.revision") { action targetId } }',
      undefined,
      'admin',
    );
    const restored = ((audit.data?.adminAuditEvents ?? []) as { targetId: string }[]).filter(
      (event) => event.targetId === id,
    );
    expect(restored).toEqual([{ action: 'dashboard.revision.restored', targetId: id }]);
  });
});
