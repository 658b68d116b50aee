// The ready Winder dashboard of the first admin, through the real API.
import { afterEach, describe, expect, it } from 'vitest';
import { gql } from '../testing/graphql.ts';
import { PASSWORD, signIn } from '../testing/graphql-fixture.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

const LIST = '{ dashboards { _id title visibility isOwner datasources panes } }';
type Listed = {
  _id: string;
  title: string;
  visibility: string;
  isOwner: boolean;
  datasources: unknown[];
  panes: unknown[];
};

let workstations: TestWorkstation[] = [];
afterEach(async () => {
  for (const ws of workstations) await ws.dispose();
  workstations = [];
});

async function dashboardsOf(url: string, token: string): Promise<Listed[]> {
  const answer = await gql<{ dashboards: Listed[] }>(url, LIST, { token });
  return answer.data?.dashboards ?? [];
}

describe('the Winder dashboard', () => {
  it('is made once for the CREATE_ADMIN admin, private, on the machine datasource', async () => {
    const env = { CREATE_ADMIN: 'true', ADMIN_EMAIL: 'boss@towpath.test', ADMIN_PASSWORD: PASSWORD };
    const ws = await startTestWorkstation(env);
    workstations.push(ws);
    const token = await signIn(ws.urls.lan, 'boss@towpath.test');
    const [winder, ...others] = await dashboardsOf(ws.urls.lan, token);
    expect(others).toEqual([]);
    expect(winder).toMatchObject({ title: 'Winder', visibility: 'PRIVATE', isOwner: true });
    expect(winder?.datasources).toEqual([{ id: 'winder', title: 'Winder', type: 'machine', settings: {} }]);
    const titles = (
      (winder?.panes ?? []) as { widgets: { title: string; settings: Record<string, unknown> }[] }[]
    ).flatMap((p) => p.widgets.map((w) => w.title));
    expect(titles).toEqual([
      'Job',
      'Progress',
      'Lines sent',
      'Remaining time',
      'Connection',
      'Job state',
      'Last error',
    ]);

    // A restart finds the admin and leaves everything as it was.
    await ws.stop();
    const again = await startTestWorkstation(env, { root: ws.root });
    workstations.push(again);
    const token2 = await signIn(again.urls.lan, 'boss@towpath.test');
    expect((await dashboardsOf(again.urls.lan, token2)).map((d) => d.title)).toEqual(['Winder']);
  });

  it('is made for the first-run admin, and for nobody created later', async () => {
    const ws = await startTestWorkstation();
    workstations.push(ws);
    const url = ws.urls.lan;
    const code = ws.dashboardApi.services.setupCode.current;
    const first = await gql<{ registerUser: { token: string } }>(
      url,
      'mutation($e: String!, $p: String!, $c: String) { registerUser(email: $e, password: $p, setupCode: $c) { token } }',
      { variables: { e: 'owner@towpath.test', p: PASSWORD, c: code } },
    );
    const admin = first.data?.registerUser.token ?? '';
    expect((await dashboardsOf(url, admin)).map((d) => [d.title, d.isOwner])).toEqual([['Winder', true]]);

    await gql(
      url,
      'mutation($e: String!, $p: String!) { adminCreateUser(email: $e, password: $p, role: ADMIN) { _id } }',
      {
        token: admin,
        variables: { e: 'second@towpath.test', p: PASSWORD },
      },
    );
    const second = await signIn(url, 'second@towpath.test');
    // Admins list every dashboard: the second admin sees the first one's Winder, and owns none.
    expect((await dashboardsOf(url, second)).map((d) => [d.title, d.isOwner])).toEqual([['Winder', false]]);
  });
});
