// Brute-force throttling (§5.5), client IPs (§5.6), the limiter's fail-closed mode (§16) and equal
// KDF work for unknown emails (§5.3), over real HTTP.

import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createArgon2Hasher, type PasswordHasher } from '../auth/passwords.ts';
import { TEST_ARGON2_COST } from '../testing/argon2.ts';
import { errorCode } from '../testing/graphql.ts';
import { type Fixture, PASSWORD, startFixture } from '../testing/graphql-fixture.ts';

let f: Fixture;
afterEach(() => f?.ws.dispose());

const AUTH = 'mutation($e: String!, $p: String!) { authUser(email: $e, password: $p) { token } }';
const attempt = (email: string, password: string, headers?: Record<string, string>) =>
  f.call(AUTH, { e: email, p: password }, 'anonymous', headers);

/** A real test-cost hasher whose `verify` goes through `spy` (which gets the real verification). */
async function spiedHasher(
  spy: (stored: string, password: string, verify: PasswordHasher['verify']) => Promise<boolean>,
): Promise<PasswordHasher> {
  const real = await createArgon2Hasher(TEST_ARGON2_COST);
  return {
    hash: (password) => real.hash(password),
    verify: (stored, password) => spy(stored, password, real.verify),
    dummyHash: real.dummyHash,
    needsRehash: (stored) => real.needsRehash(stored),
  };
}

async function auditActions(prefix: string) {
  const response = await f.call(
    'query($p: String) { adminAuditEvents(actionPrefix: $p) { action metadata } }',
    { p: prefix },
    'admin',
  );
  return response.data?.adminAuditEvents as { action: string; metadata: Record<string, unknown> }[];
}

describe('login throttle', () => {
  it('locks email+IP on the fifth failure, refuses the sixth attempt without checking, and unlocks later', async () => {
    f = await startFixture();
    for (let i = 1; i <= 5; i += 1) {
      const response = await attempt('viewer@towpath.test', 'Wr0ng-password!');
      expect(response.errors?.[0]?.message).toBe('Invalid credentials');
    }
    const sixth = await attempt('viewer@towpath.test', PASSWORD);
    expect(sixth.errors?.[0]).toMatchObject({
      message: 'Too many login attempts. Try again in 300 seconds.',
      extensions: { code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 300 },
    });
    f.clock.advance(100_500);
    const later = await attempt('viewer@towpath.test', PASSWORD);
    expect(later.errors?.[0]?.extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 200 });
    expect(await auditActions('auth.login.locked')).toEqual([
      {
        action: 'auth.login.locked',
        metadata: { key: 'email_ip', email: 'viewer@towpath.test', ip: '127.0.0.1', lockSeconds: 300 },
      },
    ]);
    // One "blocked" record per lock period, however many attempts it turns away.
    expect(await auditActions('auth.login.blocked')).toEqual([
      {
        action: 'auth.login.blocked',
        metadata: { key: 'email_ip', email: 'viewer@towpath.test', ip: '127.0.0.1', retryAfterSeconds: 300 },
      },
    ]);
    // Other accounts from the same IP still sign in: only the IP key's 20 would stop them.
    expect((await attempt('editor@towpath.test', PASSWORD)).errors).toBeUndefined();
    f.clock.advance(200_000);
    expect((await attempt('viewer@towpath.test', PASSWORD)).data?.authUser).toEqual({
      token: expect.any(String),
    });
  });

  it('a burst of parallel attempts gets no more guesses than sequential ones', async () => {
    let verifications = 0;
    // A slow KDF widens the gap between the throttle check and the count that a burst could use.
    const slow = await spiedHasher(async (stored, password, verify) => {
      verifications += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return verify(stored, password);
    });
    f = await startFixture({}, { dashboardApi: { passwords: slow } });
    verifications = 0;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => attempt('viewer@towpath.test', 'Wr0ng-password!')),
    );
    const codes = answers.map((answer) => errorCode(answer));
    expect(codes.filter((code) => code === 'UNAUTHENTICATED')).toHaveLength(5);
    expect(codes.filter((code) => code === 'TOO_MANY_REQUESTS')).toHaveLength(7);
    expect(verifications).toBe(5);
    expect(await auditActions('auth.login.locked')).toHaveLength(1);
    expect(await auditActions('auth.login.blocked')).toHaveLength(1);
  });

  it('ignores X-Forwarded-For when no proxy is trusted, so rotating it does not help', async () => {
    f = await startFixture();
    for (let i = 1; i <= 5; i += 1) {
      await attempt('viewer@towpath.test', 'Wr0ng-password!', { 'x-forwarded-for': `10.0.0.${i}` });
    }
    const sixth = await attempt('viewer@towpath.test', PASSWORD, { 'x-forwarded-for': '10.0.0.99' });
    expect(errorCode(sixth)).toBe('TOO_MANY_REQUESTS');
  });

  it('uses the trusted proxy hop when API_TRUST_PROXY_HOPS is set', async () => {
    f = await startFixture({ API_TRUST_PROXY_HOPS: '1' });
    for (let i = 1; i <= 5; i += 1) {
      await attempt('viewer@towpath.test', 'Wr0ng-password!', { 'x-forwarded-for': '6.6.6.6, 10.0.0.1' });
    }
    expect(errorCode(await attempt('viewer@towpath.test', PASSWORD, { 'x-forwarded-for': '10.0.0.1' }))).toBe(
      'TOO_MANY_REQUESTS',
    );
    // Another client behind the same proxy is a different key.
    expect(
      (await attempt('viewer@towpath.test', PASSWORD, { 'x-forwarded-for': '10.0.0.2' })).errors,
    ).toBeUndefined();
    const locked = await auditActions('auth.login.locked');
    expect(locked[0]?.metadata).toMatchObject({ ip: '10.0.0.1' });
  });

  it('believes X-Forwarded-For only from a trusted proxy, so a direct client cannot rotate it', async () => {
    // Hops are configured, but the test client is not the proxy TRUSTED_PROXIES names.
    f = await startFixture({ API_TRUST_PROXY_HOPS: '1', TRUSTED_PROXIES: '192.0.2.10' });
    for (let i = 1; i <= 5; i += 1) {
      await attempt('viewer@towpath.test', 'Wr0ng-password!', { 'x-forwarded-for': `10.0.0.${i}` });
    }
    const sixth = await attempt('viewer@towpath.test', PASSWORD, { 'x-forwarded-for': '10.0.0.99' });
    expect(errorCode(sixth)).toBe('TOO_MANY_REQUESTS');
    expect((await auditActions('auth.login.locked'))[0]?.metadata).toMatchObject({
      key: 'email_ip',
      ip: '127.0.0.1',
    });
  });

  it('locks the email after 3 × AUTH_LOGIN_MAX_ATTEMPTS failures however the client address varies', async () => {
    // Through a trusted proxy every guess may come from a new address: only the email key holds.
    f = await startFixture({ API_TRUST_PROXY_HOPS: '1' });
    const from = (i: number) => ({ 'x-forwarded-for': `10.${(i >> 8) & 255}.${i & 255}.7` });
    for (let i = 1; i <= 15; i += 1) {
      const answer = await attempt('admin@towpath.test', 'Wr0ng-password!', from(i));
      expect(answer.errors?.[0]?.message, `guess ${i}`).toBe('Invalid credentials');
    }
    const right = await attempt('admin@towpath.test', PASSWORD, from(16));
    expect(right.errors?.[0]?.extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 300 });
    expect(await auditActions('auth.login.locked')).toEqual([
      {
        action: 'auth.login.locked',
        metadata: { key: 'email', email: 'admin@towpath.test', ip: '10.0.15.7', lockSeconds: 300 },
      },
    ]);
    // Other accounts are not affected; the lock runs out with its time.
    expect((await attempt('editor@towpath.test', PASSWORD, from(17))).errors).toBeUndefined();
    f.clock.advance(300_000);
    expect((await attempt('admin@towpath.test', PASSWORD, from(18))).errors).toBeUndefined();
  });

  it('a parallel burst from rotating addresses gets no more than 3 × AUTH_LOGIN_MAX_ATTEMPTS guesses', async () => {
    let verifications = 0;
    const slow = await spiedHasher(async (stored, password, verify) => {
      verifications += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return verify(stored, password);
    });
    f = await startFixture({ API_TRUST_PROXY_HOPS: '1' }, { dashboardApi: { passwords: slow } });
    verifications = 0;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        attempt('admin@towpath.test', 'Wr0ng-password!', { 'x-forwarded-for': `10.1.${i}.1` }),
      ),
    );
    const codes = answers.map((answer) => errorCode(answer));
    expect(codes.filter((code) => code === 'UNAUTHENTICATED')).toHaveLength(15);
    expect(codes.filter((code) => code === 'TOO_MANY_REQUESTS')).toHaveLength(25);
    expect(verifications).toBe(15);
  });

  it('success clears the email+IP count', async () => {
    f = await startFixture();
    for (let i = 0; i < 4; i += 1) await attempt('viewer@towpath.test', 'Wr0ng-password!');
    expect((await attempt('viewer@towpath.test', PASSWORD)).errors).toBeUndefined();
    for (let i = 0; i < 4; i += 1) {
      expect((await attempt('viewer@towpath.test', 'Wr0ng-password!')).errors?.[0]?.message).toBe(
        'Invalid credentials',
      );
    }
    expect((await attempt('viewer@towpath.test', PASSWORD)).errors).toBeUndefined();
  });

  it('locks the IP after AUTH_LOGIN_IP_MAX_ATTEMPTS failures across emails, unknown ones included', async () => {
    f = await startFixture({ AUTH_LOGIN_IP_MAX_ATTEMPTS: '3', AUTH_LOGIN_LOCK_SECONDS: '60' });
    await attempt('ghost1@towpath.test', 'Wr0ng-password!');
    await attempt('ghost2@towpath.test', 'Wr0ng-password!');
    await attempt('viewer@towpath.test', 'Wr0ng-password!');
    const blocked = await attempt('editor@towpath.test', PASSWORD);
    expect(blocked.errors?.[0]?.extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 60 });
    expect((await auditActions('auth.login.locked'))[0]?.metadata).toMatchObject({
      key: 'ip',
      lockSeconds: 60,
    });
  });

  it('fails closed when the limiter storage fails', async () => {
    f = await startFixture();
    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'));
    try {
      sqlite.exec('ALTER TABLE security_limiter_state RENAME TO limiter_away');
      const response = await attempt('viewer@towpath.test', PASSWORD);
      expect(response.errors?.[0]).toMatchObject({
        message: 'Security limiter unavailable',
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      });
      expect(response.data).toEqual({ authUser: null });
      expect(await auditActions('auth.login.limiter_unavailable')).toEqual([
        { action: 'auth.login.limiter_unavailable', metadata: { ip: '127.0.0.1' } },
      ]);
    } finally {
      sqlite.close();
    }
  });

  it('stores limiter keys only as hashes', async () => {
    f = await startFixture();
    await attempt('viewer@towpath.test', 'Wr0ng-password!');
    const sqlite = new BetterSqlite3(join(f.ws.dataDir, 'towpath.db'), { readonly: true });
    try {
      const rows = sqlite.prepare('SELECT key_hash, count FROM security_limiter_state').all() as {
        key_hash: string;
        count: number;
      }[];
      // email+IP, IP and email.
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(row.count).toBe(1);
      }
    } finally {
      sqlite.close();
    }
  });
});

describe('equal work for unknown emails', () => {
  it('verifies a hash with the same Argon2id parameters whether or not the email exists', async () => {
    const work: string[] = [];
    // Records the PHC parameters each verification ran with, i.e. the KDF work done.
    const params = (phc: string) => phc.split('$').slice(1, 4).join('$');
    const counting = await spiedHasher(async (stored, password, verify) => {
      work.push(params(stored));
      return verify(stored, password);
    });
    f = await startFixture({}, { dashboardApi: { passwords: counting } });
    work.length = 0;
    expect(errorCode(await attempt('viewer@towpath.test', 'Wr0ng-password!'))).toBe('UNAUTHENTICATED');
    expect(errorCode(await attempt('nobody@towpath.test', 'Wr0ng-password!'))).toBe('UNAUTHENTICATED');
    expect(work).toEqual(['argon2id$v=19$m=1024,t=1,p=1', 'argon2id$v=19$m=1024,t=1,p=1']);
  });
});
