// Subscription `dashboard(_id)` over both SSE transports (§2, §9): per-subscriber projections, one
// null and the end for whoever loses access, and fan-out to many subscribers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, signIn, startFixture } from '../testing/graphql-fixture.ts';
import { subscribe } from '../testing/sse.ts';

const SUBSCRIPTION =
  'subscription($id: ID!) { dashboard(_id: $id) { _id title documentRevision shareToken user acl { userId } canEdit } }';

let f: Fixture;
let viewer2: string;

beforeAll(async () => {
  f = await startFixture();
  await f.call(
    'mutation { adminCreateUser(email: "viewer2@towpath.test", password: "Str0ng-password!", role: VIEWER) { _id } }',
    undefined,
    'admin',
  );
  viewer2 = await signIn(f.url, 'viewer2@towpath.test');
});

afterAll(() => f?.ws.dispose());

async function sharedDashboard(): Promise<string> {
  const created = await f.call(
    'mutation { createDashboard(dashboard: { title: "Floor", version: "1" }) { _id } }',
    undefined,
    'editor',
  );
  const id = (created.data?.createDashboard as { _id: string } | undefined)?._id ?? '';
  for (const email of ['viewer@towpath.test', 'viewer2@towpath.test'])
    await f.call(
      'mutation($id: ID!, $e: String!) { upsertDashboardAccess(_id: $id, email: $e, accessLevel: VIEWER) { _id } }',
      { id, e: email },
      'editor',
    );
  return id;
}

const update = (id: string, title: string, expected: number) =>
  f.call(
    'mutation($id: ID!, $t: String!, $r: Int!) { updateDashboard(_id: $id, dashboard: { title: $t, expectedDocumentRevision: $r }) { documentRevision } }',
    { id, t: title, r: expected },
    'editor',
  );

describe.each(['/graphql', '/graphql/stream'] as const)('subscription dashboard over %s', (path) => {
  it('sends each subscriber its own projection; revoking one sends it null and ends only its stream', async () => {
    const id = await sharedDashboard();
    const viewer = await subscribe(f.url, path, SUBSCRIPTION, { id }, f.tokens.viewer);
    const other = await subscribe(f.url, path, SUBSCRIPTION, { id }, viewer2);
    const admin = await subscribe(f.url, path, SUBSCRIPTION, { id }, f.tokens.admin);
    expect([viewer.status, other.status, admin.status]).toEqual([200, 200, 200]);
    // The subscriptions are registered once the streams are open; an update reaches all three.
    expect(errorsOf(await update(id, 'Floor 2', 1))).toBeUndefined();
    const [seenByViewer, seenByOther, seenByAdmin] = await Promise.all([
      viewer.next(),
      other.next(),
      admin.next(),
    ]);
    expect(seenByViewer).toEqual({
      data: {
        dashboard: {
          _id: id,
          title: 'Floor 2',
          documentRevision: 2,
          shareToken: null,
          user: null,
          acl: [],
          canEdit: false,
        },
      },
    });
    expect(seenByOther).toEqual(seenByViewer);
    expect(seenByAdmin).toMatchObject({
      data: { dashboard: { documentRevision: 2, user: f.ids.editor, canEdit: true } },
    });
    expect((seenByAdmin as { data: { dashboard: { acl: unknown[] } } }).data.dashboard.acl).toHaveLength(2);

    await f.call(
      'mutation($id: ID!, $u: ID!) { revokeDashboardAccess(_id: $id, userId: $u) { _id } }',
      { id, u: f.ids.viewer },
      'editor',
    );
    expect(await viewer.next()).toEqual({ data: { dashboard: null } });
    expect(await viewer.next()).toBe('complete');
    expect(await other.next()).toMatchObject({ data: { dashboard: { documentRevision: 2 } } });
    expect(await admin.next()).toMatchObject({ data: { dashboard: { documentRevision: 2 } } });

    await update(id, 'Floor 3', 2);
    expect(await other.next()).toMatchObject({
      data: { dashboard: { title: 'Floor 3', documentRevision: 3 } },
    });
    await f.call('mutation($id: ID!) { deleteDashboard(_id: $id) { _id } }', { id }, 'editor');
    expect(await admin.next()).toMatchObject({ data: { dashboard: { title: 'Floor 3' } } });
    expect(await admin.next()).toEqual({ data: { dashboard: null } });
    expect(await admin.next()).toBe('complete');
    expect(await other.next()).toEqual({ data: { dashboard: null } });
    expect(await other.next()).toBe('complete');
  });

  it('refuses anonymous callers and unreadable dashboards', async () => {
    const id = await sharedDashboard();
    const anonymous = await subscribe(f.url, path, SUBSCRIPTION, { id });
    const first = await anonymous.next();
    expect(first).toMatchObject({
      errors: [
        { message: 'You must be logged in to perform this action', extensions: { code: 'UNAUTHENTICATED' } },
      ],
    });
    const created = await f.call(
      'mutation { createDashboard(dashboard: { title: "Mine", version: "1" }) { _id } }',
      undefined,
      'editor',
    );
    const mine = (created.data?.createDashboard as { _id: string } | undefined)?._id;
    const outsider = await subscribe(f.url, path, SUBSCRIPTION, { id: mine }, f.tokens.viewer);
    expect(await outsider.next()).toMatchObject({
      errors: [{ message: 'Dashboard not found', extensions: { code: 'NOT_FOUND' } }],
    });
  });
});

function errorsOf(response: { errors?: unknown }) {
  return response.errors;
}

describe('fan-out', () => {
  it('gives each of 200 concurrent subscribers exactly one event per update', async () => {
    const id = await sharedDashboard();
    const subscribers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        subscribe(f.url, i % 2 === 0 ? '/graphql' : '/graphql/stream', SUBSCRIPTION, { id }, f.tokens.viewer),
      ),
    );
    try {
      for (let revision = 1; revision <= 3; revision += 1) {
        await update(id, `Floor ${revision}`, revision);
        const events = await Promise.all(subscribers.map((subscriber) => subscriber.next()));
        for (const event of events)
          expect(event).toMatchObject({ data: { dashboard: { documentRevision: revision + 1 } } });
      }
      // Nothing extra queued: the deletion is the next (and last) thing each one sees.
      await f.call('mutation($id: ID!) { deleteDashboard(_id: $id) { _id } }', { id }, 'editor');
      const last = await Promise.all(subscribers.map((subscriber) => subscriber.next()));
      for (const event of last) expect(event).toEqual({ data: { dashboard: null } });
    } finally {
      for (const subscriber of subscribers) subscriber.close();
    }
  }, 60_000);

  it('ends the streams of a deactivated user with one null', async () => {
    const id = await sharedDashboard();
    const subscriber = await subscribe(f.url, '/graphql', SUBSCRIPTION, { id }, viewer2);
    const users = await f.call('{ listAllUsers { _id email } }', undefined, 'admin');
    const target = ((users.data?.listAllUsers ?? []) as { _id: string; email: string }[]).find(
      (user) => user.email === 'viewer2@towpath.test',
    );
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }',
      { id: target?._id },
      'admin',
    );
    expect(await subscriber.next()).toEqual({ data: { dashboard: null } });
    expect(await subscriber.next()).toBe('complete');
  });
});
