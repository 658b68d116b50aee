// Fixed-window counting on a real SQLite limiter table: counted per key, or all or nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/database.ts';
import { Store } from '../db/store.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { fixedWindows, RequestQuota } from './rate-limit.ts';
import { TokenHasher } from './tokens.ts';

let database: Database;
let store: Store;
let now = Date.parse('2026-11-27T12:00:00.000Z');
const clock = () => now;

beforeEach(async () => {
  database = openDatabase(await makeTempDir());
  store = new Store(database);
  now = Date.parse('2026-11-27T12:00:00.000Z');
});
afterEach(() => database.close());

const allowed = (keys: { keyHash: string; limit: number }[], allOrNothing = false) =>
  fixedWindows(store, clock, keys, { windowMs: 10_000, allOrNothing }).map((c) => c.allowed);

describe('fixedWindows', () => {
  it('counts every key on its own, refusing past the limit until the window ends', () => {
    expect(
      allowed([
        { keyHash: 'a', limit: 2 },
        { keyHash: 'b', limit: 1 },
      ]),
    ).toEqual([true, true]);
    expect(
      allowed([
        { keyHash: 'a', limit: 2 },
        { keyHash: 'b', limit: 1 },
      ]),
    ).toEqual([true, false]);
    const [a] = fixedWindows(store, clock, [{ keyHash: 'a', limit: 2 }], { windowMs: 10_000 });
    expect(a).toEqual({ allowed: false, retryAfterMs: 10_000, remaining: 0, firstRefusal: true });
    now += 4_000;
    const [again] = fixedWindows(store, clock, [{ keyHash: 'a', limit: 2 }], { windowMs: 10_000 });
    expect(again).toMatchObject({ allowed: false, retryAfterMs: 6_000, firstRefusal: false });
    now += 6_000;
    expect(allowed([{ keyHash: 'a', limit: 2 }])).toEqual([true]);
  });

  it('all or nothing: a request with one full key counts on none of them', () => {
    expect(allowed([{ keyHash: 'x', limit: 1 }], true)).toEqual([true]);
    expect(
      allowed(
        [
          { keyHash: 'x', limit: 1 },
          { keyHash: 'y', limit: 5 },
        ],
        true,
      ),
    ).toEqual([false, false]);
    expect(store.limiter.get('y')).toBeUndefined();
    expect(store.limiter.get('x')?.count).toBe(1);
    now += 10_000;
    expect(
      allowed(
        [
          { keyHash: 'x', limit: 1 },
          { keyHash: 'y', limit: 5 },
        ],
        true,
      ),
    ).toEqual([true, true]);
    expect(store.limiter.get('y')?.count).toBe(1);
  });
});

describe('RequestQuota', () => {
  it('takes a request only while every key has room in its window', () => {
    const quota = new RequestQuota(store, new TokenHasher('pepper'), clock);
    const keys = [
      { key: 'reset:ip:10.0.0.1', limit: 2 },
      { key: 'reset:email:a@towpath.test', limit: 3 },
    ];
    expect([quota.take(keys, 60), quota.take(keys, 60), quota.take(keys, 60)]).toEqual([true, true, false]);
    expect(quota.take([{ key: 'reset:email:a@towpath.test', limit: 3 }], 60)).toBe(true);
    expect(quota.take([{ key: 'reset:email:a@towpath.test', limit: 3 }], 60)).toBe(false);
    now += 60_000;
    expect(quota.take(keys, 60)).toBe(true);
  });
});
