// Offboarding (§6.6) and restarts: a second workstation on the same data dir keeps dashboards, ACL,
// revisions, history and revocation events.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gql } from '../testing/graphql.ts';
import { ADMIN_EMAIL, PASSWORD, signIn, startFixture } from '../testing/graphql-fixture.ts';
import { subscribe } from '../testing/sse.ts';
import { startTestWorkstation } from '../testing/workstation.ts';

const STATE =
  '_id title visibility shareToken shareTokenVersion documentRevision user acl { userId accessLevel grantedBy grantedAt } createdAt updatedAt';

describe('dashboards across offboarding and restarts', () => {
  it('offboards an owner in one transaction and keeps everything over a restart', async () => {
    const root = await mkdtemp(join(tmpdir(), 'towpath-dash-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const f = await startFixture({}, { root });
    let stopped = false;
    try {
      await f.call(
        `mutation { adminCreateUser(email: "leaver@towpath.test", password: "${PASSWORD}", role: EDITOR) { _id } }`,
        undefined,
        'admin',
      );
      const leaver = { token: await signIn(f.url, 'leaver@towpath.test') };
      const leaverId =
        ((await f.call('{ me { _id } }', undefined, leaver)).data?.me as { _id: string } | undefined)?._id ??
        '';
      const created = await f.call(
        'mutation { createDashboard(dashboard: { title: "Line 1", version: "1" }) { _id } }',
        undefined,
        leaver,
      );
      const owned = (created.data?.createDashboard as { _id: string } | undefined)?._id ?? '';
      await f.call(
        'mutation($id: ID!) { setDashboardVisibility(_id: $id, visibility: LINK) { _id } }',
        { id: owned },
        'admin',
      );
      await f.call(
        'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "admin@towpath.test", accessLevel: EDITOR) { _id } }',
        { id: owned },
        leaver,
      );
      const kept = await f.call(
        'mutation { createDashboard(dashboard: { title: "Kept", version: "1" }) { _id } }',
        undefined,
        'editor',
      );
      const keptId = (kept.data?.createDashboard as { _id: string } | undefined)?._id ?? '';
      await f.call(
        'mutation($id: ID!) { upsertDashboardAccess(_id: $id, email: "leaver@towpath.test", accessLevel: EDITOR) { _id } }',
        { id: keptId },
        'editor',
      );
      for (let revision = 1; revision <= 3; revision += 1)
        await f.call(
          'mutation($id: ID!, $r: Int!) { updateDashboard(_id: $id, dashboard: { columns: 4, expectedDocumentRevision: $r }) { _id } }',
          { id: keptId, r: revision },
          'editor',
        );
      const watcher = await subscribe(
        f.url,
        '/graphql',
        'subscription($id: ID!) { dashboard(_id: $id) { visibility user shareTokenVersion } }',
        { id: owned },
        f.tokens.admin,
      );

      const users = await f.call('{ listAllUsers { _id email } }', undefined, 'admin');
      expect(users.errors).toBeUndefined();
      await f.call(
        'mutation($id: ID!) { adminUpdateUser(_id: $id, active: false) { _id } }',
        { id: leaverId },
        'admin',
      );
      const deleted = await f.call(
        'mutation($id: ID!) { adminDeleteUser(_id: $id) { email } }',
        { id: leaverId },
        'admin',
      );
      expect(deleted.errors).toBeUndefined();
      expect(await watcher.next()).toEqual({
        data: { dashboard: { visibility: 'PRIVATE', user: f.ids.admin, shareTokenVersion: 3 } },
      });
      watcher.close();
      const reassigned = await f.call(
        `query($id: ID!) { dashboard(_id: $id) { ${STATE} } }`,
        { id: owned },
        'admin',
      );
      expect(reassigned.data?.dashboard).toMatchObject({
        user: f.ids.admin,
        visibility: 'PRIVATE',
        shareToken: null,
        acl: [],
      });
      const keptAcl = await f.call(
        `query($id: ID!) { dashboard(_id: $id) { acl { userId } } }`,
        { id: keptId },
        'editor',
      );
      expect(keptAcl.data?.dashboard).toEqual({ acl: [] });
      const audit = await f.call(
        '{ adminAuditEvents(actionPrefix: "dashboard.") { action targetId metadata } }',
        undefined,
        'admin',
      );
      const actions = (
        (audit.data?.adminAuditEvents ?? []) as { action: string; targetId: string; metadata: unknown }[]
      ).filter((event) => event.action.endsWith('offboarding'));
      expect(actions).toEqual(
        expect.arrayContaining([
          {
            action: 'dashboard.ownership.reassigned_for_user_offboarding',
            targetId: owned,
            metadata: {
              fromUserId: leaverId,
              toUserId: f.ids.admin,
              previousVisibility: 'link',
              forcedPrivate: true,
            },
          },
          {
            action: 'dashboard.acl.revoked_for_user_offboarding',
            targetId: keptId,
            metadata: { userId: leaverId, accessLevel: 'editor' },
          },
        ]),
      );

      const before = {
        dashboards: (await f.call(`{ dashboards { ${STATE} } }`, undefined, 'admin')).data,
        revisions: (
          await f.call(
            'query($id: ID!) { dashboardRevisions(_id: $id) { documentRevision createdAt authorUserId title document } }',
            { id: keptId },
            'editor',
          )
        ).data,
      };
      const events = f.ws.dashboardApi.services.store.dashboards.revocationEventsOf(owned);
      expect(events.map((event) => [event.shareTokenVersion, event.reason])).toEqual([
        [2, 'visibility_changed'],
        [3, 'owner_offboarded'],
      ]);
      await f.ws.stop();
      stopped = true;

      const again = await startTestWorkstation(
        { CREATE_ADMIN: 'true', ADMIN_EMAIL, ADMIN_PASSWORD: PASSWORD },
        { root },
      );
      try {
        const admin = await signIn(again.urls.lan, ADMIN_EMAIL);
        const editor = await signIn(again.urls.lan, 'editor@towpath.test');
        expect((await gql(again.urls.lan, `{ dashboards { ${STATE} } }`, { token: admin })).data).toEqual(
          before.dashboards,
        );
        expect(
          (
            await gql(
              again.urls.lan,
              'query($id: ID!) { dashboardRevisions(_id: $id) { documentRevision createdAt authorUserId title document } }',
              { token: editor, variables: { id: keptId } },
            )
          ).data,
        ).toEqual(before.revisions);
        expect(again.dashboardApi.services.store.dashboards.revocationEventsOf(owned)).toEqual(events);
      } finally {
        await again.stop();
      }
    } finally {
      if (!stopped) await f.ws.stop();
    }
  });
});
