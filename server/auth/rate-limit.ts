import type { Store } from '../db/store.ts';
import { LimiterUnavailable } from './limiter.ts';
import { type Clock, iso } from './tokens.ts';

export interface Consumed {
  allowed: boolean;
  /** Until the window ends when refused, else 0. */
  retryAfterMs: number;
  remaining: number;
  /** The first refusal of this key in its window (audited once per key per window). */
  firstRefusal: boolean;
}

const WINDOW_MS = 60_000;

/**
 * Fixed 60 s windows from a key's first hit on the SQLite security limiter (§16). `keyHash` is
 * already `H("limiter", …)`. Each check-and-count is one transaction; any storage error surfaces as
 * `LimiterUnavailable` (fail-closed).
 */
export function consumeFixedWindow(store: Store, clock: Clock, keyHash: string, limit: number): Consumed {
  return consumeFixedWindows(store, clock, [{ keyHash, limit }])[0] as Consumed;
}

/**
 * One hit on each of several keys in a single transaction (one commit for a request that several
 * limits apply to, e.g. a mint: per user and per user+dashboard). Every key is counted whatever
 * the others answer, as if each were consumed on its own.
 */
export function consumeFixedWindows(
  store: Store,
  clock: Clock,
  keys: readonly { keyHash: string; limit: number }[],
): Consumed[] {
  const now = clock();
  try {
    return store.transaction(() => keys.map(({ keyHash, limit }) => hit(store, now, keyHash, limit)));
  } catch (error) {
    throw new LimiterUnavailable('security limiter storage failed', { cause: error });
  }
}

/** One hit in the fixed window of one key; inside the caller's transaction. */
function hit(store: Store, now: number, keyHash: string, limit: number): Consumed {
  const row = store.limiter.get(keyHash);
  const started = row ? Date.parse(row.windowStartedAt) : 0;
  const fresh = !row || now - started >= WINDOW_MS;
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
    expiresAt: iso(windowStart + WINDOW_MS),
  });
  return {
    allowed,
    retryAfterMs: allowed ? 0 : windowStart + WINDOW_MS - now,
    remaining: Math.max(0, limit - hits),
    firstRefusal: !allowed && !reported,
  };
}
