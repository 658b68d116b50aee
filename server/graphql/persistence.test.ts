// Users, sessions and audit survive restarts; a SIGKILL mid-write loses nothing acknowledged.

import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { errorCode, gql } from '../testing/graphql.ts';
import { ADMIN_EMAIL, PASSWORD, signIn, startFixture } from '../testing/graphql-fixture.ts';
import { startNode } from '../testing/process.ts';
import { makeTempDir, startTestWorkstation } from '../testing/workstation.ts';

describe('persistence', () => {
  it('keeps users, sessions and audit across a restart on the same data dir', async () => {
    const root = await makeTempDir();
    const first = await startFixture({}, { root });
    const viewerToken = first.tokens.viewer;
    await first.ws.dispose();

    const second = await startTestWorkstation({}, { root });
    try {
      const url = second.urls.lan;
      const me = await gql(url, '{ me { email role } }', { token: viewerToken });
      expect(me.data?.me).toEqual({ email: 'viewer@towpath.test', role: 'VIEWER' });
      const admin = await signIn(url, ADMIN_EMAIL);
      const events = await gql(url, '{ adminAuditEvents { action } }', { token: admin });
      // Three accounts and the bootstrap admin's Winder dashboard.
      expect((events.data?.adminAuditEvents as unknown[] | undefined)?.length).toBe(4);
    } finally {
      await second.dispose();
    }
  });

  it('survives SIGKILL during 200 concurrent registrations with every acknowledged one stored', async () => {
    const root = await makeTempDir();
    const dataDir = join(root, 'data');
    const child = startNode('server/testing/serve.ts', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      WINDING_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      CREATE_ADMIN: 'true',
      ADMIN_EMAIL,
      ADMIN_PASSWORD: PASSWORD,
    });
    const url = (await child.waitFor(/listening (\S+)/))[1] ?? '';
    const admin = await signIn(url, ADMIN_EMAIL);
    await gql(url, 'mutation { setAuthPolicy(registrationMode: OPEN) { registrationMode } }', {
      token: admin,
    });

    const acknowledged: string[] = [];
    let killed = false;
    const registrations = Array.from({ length: 200 }, async (_, i) => {
      const email = `user${i}@towpath.test`;
      try {
        const response = await gql(
          url,
          'mutation($e: String!, $p: String!) { registerUser(email: $e, password: $p) { token } }',
          {
            variables: { e: email, p: PASSWORD },
          },
        );
        if (response.data?.registerUser) acknowledged.push(email);
        if (acknowledged.length >= 40 && !killed) {
          killed = true;
          child.child.kill('SIGKILL');
        }
      } catch {
        // Connections cut by the kill.
      }
    });
    await Promise.all(registrations);
    await child.finished;
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    const restarted = await startTestWorkstation({}, { root });
    try {
      const token = await signIn(restarted.urls.lan, ADMIN_EMAIL);
      const users = await gql<{ listAllUsers: { email: string; active: boolean; role: string }[] }>(
        restarted.urls.lan,
        '{ listAllUsers { email active role } }',
        { token },
      );
      const stored = new Set(users.data?.listAllUsers.map((u) => u.email));
      for (const email of acknowledged) expect(stored.has(email)).toBe(true);
      // Whatever was stored is whole: a usable password hash and a normal row.
      const sqlite = new BetterSqlite3(join(dataDir, 'towpath.db'), { readonly: true });
      try {
        expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = sqlite
          .prepare("SELECT email, password_hash, role, session_version FROM users WHERE email LIKE 'user%'")
          .all() as {
          password_hash: string;
          role: string;
          session_version: number;
        }[];
        expect(rows.length).toBe(stored.size - 1);
        for (const row of rows) {
          expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
          expect([row.role, row.session_version]).toEqual(['viewer', 0]);
        }
      } finally {
        sqlite.close();
      }
      expect(errorCode(await gql(restarted.urls.lan, '{ me { _id } }'))).toBe('UNAUTHENTICATED');
      await expect(signIn(restarted.urls.lan, acknowledged[0] ?? '')).resolves.toEqual(expect.any(String));
    } finally {
      await restarted.dispose();
    }
  }, 60_000);
});
