// Fixed-window request counting on the SQLite security limiter (§16): the one place that counts
// requests per key per window, for the realtime gateway's limits, session-token mints and the
// anonymous operations' quotas. Sign-in's lock-out rules are `login-throttle.ts`.
import type { Now } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { iso, type TokenHasher } from './tokens.ts';

/** The limiter's storage failed; callers answer "unavailable" (fail-closed, §16). */
export class LimiterUnavailable extends Error {
  override name = 'LimiterUnavailable';
}

export interface Consumed {
  allowed: boolean;
  /** Until the window ends when refused, else 0. */
  retryAfterMs: number;
  remaining: number;
  /** The first refusal of this key in its window (audited once per key per window). */
  firstRefusal: boolean;
}

const WINDOW_MS = 60_000;

export interface WindowKey {
  /** Already `H("limiter", …)`. */
  keyHash: string;
  /** Hits allowed per window. */
  limit: number;
}

export interface WindowOptions {
  /** [60 s] */
  windowMs?: number;
  /**
   * Count the hit on every key only when all of them have room; a refused request writes nothing, so
   * a flood beyond the limit costs no storage. Otherwise every key is counted whatever the others
   * answer, as if each were consumed on its own.
   */
  allOrNothing?: boolean;
}

/**
 * One hit on each of several keys in a single transaction (one commit for a request that several
 * limits apply to, e.g. a mint: per user and per user+dashboard). Windows are fixed from a key's
 * first hit. Any storage error surfaces as `LimiterUnavailable` (fail-closed).
 */
export function fixedWindows(
  store: Store,
  clock: Now,
  keys: readonly WindowKey[],
  { windowMs = WINDOW_MS, allOrNothing = false }: WindowOptions = {},
): Consumed[] {
  const now = clock();
  try {
    return store.transaction(() => {
      if (allOrNothing) {
        const windows = keys.map(({ keyHash }) => current(store, now, keyHash, windowMs));
        if (keys.some(({ limit }, i) => (windows[i]?.count ?? 0) >= limit))
          return keys.map(({ limit }, i) => {
            const { count, startedAt } = windows[i] as Window;
            const full = count >= limit;
            return {
              allowed: false,
              retryAfterMs: full ? startedAt + windowMs - now : 0,
              remaining: Math.max(0, limit - count),
              firstRefusal: false,
            };
          });
      }
      return keys.map(({ keyHash, limit }) => hit(store, now, keyHash, limit, windowMs));
    });
  } catch (error) {
    throw new LimiterUnavailable('security limiter storage failed', { cause: error });
  }
}

/** One key on the default 60 s window. */
export function consumeFixedWindow(store: Store, clock: Now, keyHash: string, limit: number): Consumed {
  return fixedWindows(store, clock, [{ keyHash, limit }])[0] as Consumed;
}

interface Window {
  count: number;
  startedAt: number;
}

/** A key's count in its current window (0 and now when it has none); inside the caller's transaction. */
function current(store: Store, now: number, keyHash: string, windowMs: number): Window {
  const row = store.limiter.get(keyHash);
  const started = row ? Date.parse(row.windowStartedAt) : 0;
  return row && now - started < windowMs
    ? { count: row.count, startedAt: started }
    : { count: 0, startedAt: now };
}

/** One hit in the fixed window of one key; inside the caller's transaction. */
function hit(store: Store, now: number, keyHash: string, limit: number, windowMs: number): Consumed {
  const row = store.limiter.get(keyHash);
  const started = row ? Date.parse(row.windowStartedAt) : 0;
  const fresh = !row || now - started >= windowMs;
  const windowStart = fresh ? now : started;
  const hits = (fresh ? 0 : (row?.count ?? 0)) + 1;
  const allowed = hits <= limit;
  const reported = fresh ? false : (row?.reported ?? false);
  store.limiter.put({
    keyHash,
    count: Math.min(hits, limit + 1),
    windowStartedAt: iso(windowStart),
    lockUntil: null,
    reported: reported || !allowed,
    expiresAt: iso(windowStart + windowMs),
  });
  return {
    allowed,
    retryAfterMs: allowed ? 0 : windowStart + windowMs - now,
    remaining: Math.max(0, limit - hits),
    firstRefusal: !allowed && !reported,
  };
}

export interface QuotaKey {
  /** The key as text; stored only as `H("limiter", key)`. */
  key: string;
  /** Requests acted on per window. */
  limit: number;
}

/**
 * Fixed-window request quotas for anonymous operations that must not be repeated without bound: a
 * request is acted on only when every key it counts against has room.
 */
export class RequestQuota {
  readonly #store: Store;
  readonly #hasher: TokenHasher;
  readonly #clock: Now;

  constructor(store: Store, hasher: TokenHasher, clock: Now) {
    this.#store = store;
    this.#hasher = hasher;
    this.#clock = clock;
  }

  /** Counts one request against every key when all of them have room, and answers whether they had. */
  take(keys: QuotaKey[], windowSeconds: number): boolean {
    const hashed = keys.map(({ key, limit }) => ({ keyHash: this.#hasher.hash('limiter', key), limit }));
    return fixedWindows(this.#store, this.#clock, hashed, {
      windowMs: windowSeconds * 1000,
      allOrNothing: true,
    }).every((consumed) => consumed.allowed);
  }
}
