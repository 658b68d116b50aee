// Password reset requests over real HTTP: a quota per email and per client
// address, nothing stored or audited beyond it, one live token per account, hourly pruning.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

let f: Fixture;
afterEach(() => f?.ws.dispose());

const REQUEST = 'mutation($e: String!) { requestPasswordReset(email: $e) }';
const request = async (email: string, headers?: Record<string, string>) => {
  const response = await f.call(REQUEST, { e: email }, 'anonymous', headers);
  expect(response.raw).toBe('{"data":{"requestPasswordReset":true}}');
};
const actOnQueued = () => f.ws.dashboardApi.services.resetRequests.flush();

function count(sql: string): number {
  const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'), { readonly: true });
  try {
    return (sqlite.prepare(sql).get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}
const requestedEvents = () =>
  count("SELECT COUNT(*) AS n FROM audit_events WHERE action = 'password_reset.requested'");
const tokens = () => count('SELECT COUNT(*) AS n FROM password_reset_tokens');

describe('requestPasswordReset', () => {
  it('acts on 3 requests per email an hour and stores nothing beyond them', async () => {
    f = await startFixture();
    for (let i = 0; i < 8; i += 1) await request('viewer@towpath.test');
    actOnQueued();
    expect(requestedEvents()).toBe(3);
    // One live token per account: each request replaced the previous one.
    expect(tokens()).toBe(1);
    const limiterRows = count('SELECT COUNT(*) AS n FROM security_limiter_state');
    // A flood of a few hundred more, from eight clients at once, leaves every table as it was.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 30; i += 1) await request('viewer@towpath.test');
      }),
    );
    actOnQueued();
    expect([requestedEvents(), tokens()]).toEqual([3, 1]);
    expect(count('SELECT COUNT(*) AS n FROM security_limiter_state')).toBe(limiterRows);

    f.clock.advance(3_600_000);
    await request('viewer@towpath.test');
    actOnQueued();
    expect([requestedEvents(), tokens()]).toEqual([4, 1]);
  });

  it('acts on 20 requests per client address an hour, known and unknown emails alike', async () => {
    f = await startFixture({ API_TRUST_PROXY_HOPS: '1' });
    const lanClient = { 'x-forwarded-for': '192.168.1.20' };
    for (let i = 0; i < 20; i += 1) await request(`ghost${i}@towpath.test`, lanClient);
    await request('viewer@towpath.test', lanClient);
    actOnQueued();
    expect([requestedEvents(), tokens()]).toEqual([0, 0]);
    // The same email from another client still counts: the address was out of quota, not the email.
    await request('viewer@towpath.test', { 'x-forwarded-for': '192.168.1.21' });
    actOnQueued();
    expect([requestedEvents(), tokens()]).toEqual([1, 1]);
  });

  it('acts on queued requests by itself shortly after they arrive', async () => {
    f = await startFixture();
    await request('editor@towpath.test');
    // The answer came before the work; the batch timer does it without being asked.
    await expect.poll(requestedEvents, { timeout: 10_000 }).toBe(1);
    expect(tokens()).toBe(1);
  });
});

describe('reset tokens', () => {
  it('keep one live token per account and are pruned once dead', async () => {
    f = await startFixture();
    const issue = async () => {
      const response = await f.call(
        'mutation($id: ID!) { adminIssuePasswordReset(_id: $id, expiresInHours: 1) { token } }',
        { id: f.ids.viewer },
        'admin',
      );
      return (response.data?.adminIssuePasswordReset as { token: string } | undefined)?.token ?? '';
    };
    const reset = (token: string) =>
      f.call('mutation($t: String!) { resetPassword(token: $t, password: "N3w-password-ok") }', { t: token });
    const first = await issue();
    const second = await issue();
    expect(tokens()).toBe(1);
    expect((await reset(first)).errors?.[0]?.message).toBe('Invalid or expired reset token');
    await request('viewer@towpath.test');
    actOnQueued();
    expect(tokens()).toBe(1);
    expect((await reset(second)).errors?.[0]?.message).toBe('Invalid or expired reset token');

    // An admin-issued token for another account, left to expire; and a used one.
    await f.call(
      'mutation($id: ID!) { adminIssuePasswordReset(_id: $id) { token } }',
      { id: f.ids.editor },
      'admin',
    );
    const third = await issue();
    expect((await reset(third)).data).toEqual({ resetPassword: true });
    expect(tokens()).toBe(2);
    f.clock.advance(25 * 3_600_000);
    f.ws.dashboardApi.prune();
    expect(tokens()).toBe(0);
  });
});
