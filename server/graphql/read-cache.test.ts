// The stored-read cache (read-cache.ts) over real HTTP and a real SQLite file: a repeated list is
// answered without running the resolver, and every kind of write that can change what a caller may
// see shows in the very next answer.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Fixture, signIn, startFixture } from '../testing/graphql-fixture.ts';

const LIST = '{ dashboards { _id title visibility canEdit } }';

let f: Fixture;
let listCalls: ReturnType<typeof vi.spyOn>;

const titles = async (as: Parameters<Fixture['call']>[2]) => {
  const response = await f.call(LIST, undefined, as);
  if (response.errors) return response.errors[0]?.extensions?.code;
  return ((response.data?.dashboards ?? []) as { title: string }[]).map((d) => d.title).sort();
};

async function create(as: 'editor' | 'admin', title: string) {
  const response = await f.call(
    'mutation($t: String!) { createDashboard(dashboard: { title: $t, version: "1" }) { _id } }',
    { t: title },
    as,
  );
  if (response.errors) throw new Error(response.raw);
  return (response.data?.createDashboard as { _id: string } | undefined)?._id ?? '';
}

beforeAll(async () => {
  f = await startFixture();
  listCalls = vi.spyOn(f.ws.dashboardApi.services.dashboards, 'list');
});

afterAll(() => f?.ws.dispose());

describe('stored-read cache', () => {
  it('answers a repeated list from the cache, byte for byte', async () => {
    await create('editor', 'Mandrel A');
    const first = await f.call(LIST, undefined, 'editor');
    const calls = listCalls.mock.calls.length;
    const again = await f.call(LIST, undefined, 'editor');
    const third = await f.call(LIST, undefined, 'editor');
    expect(again.raw).toBe(first.raw);
    expect(third.raw).toBe(first.raw);
    expect(listCalls.mock.calls.length).toBe(calls);
  });

  it('keeps each user to their own answer', async () => {
    expect(await titles('editor')).toContain('Mandrel A');
    expect(await titles('viewer')).toEqual([]);
    expect(await titles('editor')).toContain('Mandrel A');
    expect(await titles('viewer')).toEqual([]);
  });

  it('shows a new dashboard, an ACL grant and its revocation in the next answer', async () => {
    const id = await create('editor', 'Mandrel B');
    expect(await titles('editor')).toEqual(['Mandrel A', 'Mandrel B']);
    expect(await titles('viewer')).toEqual([]);
    const grant = await f.call(
      'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "viewer@towpath.test", accessLevel: VIEWER) { _id } }',
      { id },
      'editor',
    );
    expect(grant.errors).toBeUndefined();
    expect(await titles('viewer')).toEqual(['Mandrel B']);
    const revoke = await f.call(
      'mutation($id: ID!, $u: ID!) { revokeDashboardAccess(_id: $id, userId: $u) { _id } }',
      { id, u: f.ids.viewer },
      'editor',
    );
    expect(revoke.errors).toBeUndefined();
    expect(await titles('viewer')).toEqual([]);
  });

  it('shows a policy change (public listing) in the next answer', async () => {
    const id = await create('admin', 'Shop TV');
    await f.call(
      'mutation($id: ID!) { setDashboardVisibility(_id: $id, visibility: PUBLIC) { _id } }',
      { id },
      'admin',
    );
    const policy = (enabled: boolean) =>
      f.call(
        'mutation($e: Boolean!) { setAuthPolicy(dashboardPublicListingEnabled: $e) { dashboardPublicListingEnabled } }',
        { e: enabled },
        'admin',
      );
    try {
      await policy(true);
      expect(await titles('viewer')).toEqual(['Shop TV']);
    } finally {
      await policy(false);
    }
    expect(await titles('viewer')).toEqual([]);
  });

  it('refuses a deactivated user instead of answering from the cache', async () => {
    await f.call(
      'mutation { adminCreateUser(email: "leaver@towpath.test", password: "Str0ng-password!", role: EDITOR) { _id } }',
      undefined,
      'admin',
    );
    const leaver = { token: await signIn(f.url, 'leaver@towpath.test') };
    const me = await f.call('{ me { _id } }', undefined, leaver);
    const leaverId = (me.data?.me as { _id: string } | undefined)?._id;
    expect(await titles(leaver)).toEqual([]);
    expect(await titles(leaver)).toEqual([]);
    await f.call(
      'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }',
      { id: leaverId },
      'admin',
    );
    expect(await titles(leaver)).toBe('UNAUTHENTICATED');
  });

  it('never keeps an error answer, and leaves mutations and other reads alone', async () => {
    const missing = 'query($id: ID!) { dashboard(_id: $id) { title } }';
    const id = 'f'.repeat(24);
    expect((await f.call(missing, { id }, 'editor')).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const made = await create('editor', 'Late arrival');
    expect((await f.call(missing, { id: made }, 'editor')).data?.dashboard).toEqual({
      title: 'Late arrival',
    });
    const metrics = '{ adminRuntimeMetrics { collectedAt } }';
    const a = await f.call(metrics, undefined, 'admin');
    f.clock.advance(5000);
    const b = await f.call(metrics, undefined, 'admin');
    expect(a.raw).not.toBe(b.raw);
  });
});
