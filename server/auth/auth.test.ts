import { describe, expect, it } from 'vitest';
import { isValidEmail, normaliseEmail } from './email.ts';
import { isStrongPassword } from './password-policy.ts';
import { createArgon2Hasher, SPEC_ARGON2_COST } from './passwords.ts';
import { SessionTokens } from './sessions.ts';
import { isEntityId, newEntityId, TokenHasher } from './tokens.ts';

describe('emails and passwords', () => {
  it.each([
    ['a@b.co', true],
    ['first.last+tag@mail.example.org', true],
    ['a@b', false],
    ['a@b.c', false],
    ['a@b.c0', false],
    ['a b@c.de', false],
    ['a@@c.de', false],
    ['a@-b.de', false],
    [`${'x'.repeat(65)}@c.de`, false],
  ])('%s valid: %s', (email, valid) => {
    expect(isValidEmail(normaliseEmail(email))).toBe(valid);
  });

  it.each([
    ['Str0ng-password!', true],
    ['Sh0rt-pw!', false],
    ['alllowercase-1!', false],
    ['ALLUPPERCASE-1!', false],
    ['NoDigits-here!', false],
    ['NoSymbols1here', false],
    ['Spaces 0nly Aa  ', false],
    [`Aa1!${'x'.repeat(1021)}`, false],
  ])('password %j strong: %s', (password, strong) => {
    expect(isStrongPassword(password)).toBe(strong);
  });
});

describe('Argon2id', () => {
  it('hashes with the spec parameters and asks for a rehash when they differ', async () => {
    const hasher = await createArgon2Hasher(SPEC_ARGON2_COST);
    const stored = await hasher.hash('Str0ng-password!');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hasher.verify(stored, 'Str0ng-password!')).toBe(true);
    expect(await hasher.verify(stored, 'wrong')).toBe(false);
    expect(await hasher.verify('garbage', 'x')).toBe(false);
    expect(hasher.needsRehash(stored)).toBe(false);
    expect(hasher.dummyHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const cheap = await createArgon2Hasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
    expect(cheap.needsRehash(stored)).toBe(true);
  });
});

describe('session tokens', () => {
  it('sign and verify with expiry from the injected clock', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const sessions = new SessionTokens('s'.repeat(32), 120, () => now);
    const token = await sessions.sign({ id: 'u1', sessionVersion: 3, role: 'admin' });
    expect(await sessions.verify(token)).toEqual({ userId: 'u1', sessionVersion: 3 });
    now += 119_000;
    expect(await sessions.verify(token)).not.toBeNull();
    now += 1000;
    expect(await sessions.verify(token)).toBeNull();
    const other = new SessionTokens('t'.repeat(32), 120, () => now);
    expect(
      await sessions.verify(await other.sign({ id: 'u1', sessionVersion: 0, role: 'viewer' })),
    ).toBeNull();
  });

  it('answers a remembered token exactly as a fresh verification would', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const remembered = new SessionTokens('s'.repeat(32), 60, () => now);
    const token = await remembered.sign({ id: 'u2', sessionVersion: 1, role: 'editor' });
    expect(await remembered.verify(token)).toEqual({ userId: 'u2', sessionVersion: 1 });
    // A tampered copy of a remembered token is a different string: verified afresh, refused.
    const [header, payload, signature = ''] = token.split('.');
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(await remembered.verify(`${header}.${payload}.${flipped}`)).toBeNull();
    for (const offset of [59_000, 59_999, 60_000, 61_000]) {
      now = Date.parse('2030-01-01T00:00:00Z') + offset;
      const fresh = new SessionTokens('s'.repeat(32), 60, () => now);
      expect(await remembered.verify(token), `${offset} ms`).toEqual(await fresh.verify(token));
    }
  });

  it('forgets the oldest remembered tokens beyond its bound and still verifies them', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const sessions = new SessionTokens('s'.repeat(32), 600, () => now);
    const tokens = await Promise.all(
      Array.from({ length: 1100 }, (_, i) =>
        sessions.sign({ id: `u${i}`, sessionVersion: i, role: 'viewer' }),
      ),
    );
    for (const token of tokens) expect(await sessions.verify(token)).not.toBeNull();
    expect(await sessions.verify(tokens[0] as string)).toEqual({ userId: 'u0', sessionVersion: 0 });
  });
});

describe('ids and token hashes', () => {
  it('makes 24-hex ids starting with the creation second', () => {
    const id = newEntityId(Date.parse('2030-01-01T00:00:00Z'));
    expect(isEntityId(id)).toBe(true);
    expect(id.slice(0, 8)).toBe((Date.parse('2030-01-01T00:00:00Z') / 1000).toString(16));
  });

  it('hashes by purpose with the pepper', () => {
    const a = new TokenHasher('p'.repeat(32));
    const b = new TokenHasher('q'.repeat(32));
    expect(a.hash('invite', 'x')).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash('invite', 'x')).not.toBe(a.hash('reset', 'x'));
    expect(a.hash('invite', 'x')).not.toBe(b.hash('invite', 'x'));
  });
});
