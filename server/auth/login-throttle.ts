// Sign-in throttling (API §5.5): what limits password guessing, per email, per client address and per
// both, with a queue that keeps parallel attempts from slipping past the count.
import type { Now } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { LimiterUnavailable } from './rate-limit.ts';
import { iso, type TokenHasher } from './tokens.ts';

export interface LoginThrottleSettings {
  maxAttempts: number;
  ipMaxAttempts: number;
  windowSeconds: number;
  lockSeconds: number;
}

const KEY_NAMES = ['email_ip', 'ip', 'email'] as const;
export type ThrottleKeyName = (typeof KEY_NAMES)[number];

export interface ThrottleCheck {
  /** Longest remaining lock in whole seconds (≥ 1), or 0 when not locked. */
  retryAfterSeconds: number;
  /** Keys whose lock period sees its first blocked attempt now (one `auth.login.blocked` each). */
  firstBlocked: ThrottleKeyName[];
}

/**
 * Login throttling of §5.5 on the SQLite-backed security limiter: fixed windows from a key's first
 * failure, a lock once the limit is reached. Keys are stored only as `H("limiter", …)`. Each
 * check-and-count is one synchronous transaction, and any storage error surfaces as
 * `LimiterUnavailable` so sign-in fails closed.
 */
export class LoginThrottle {
  readonly #store: Store;
  readonly #hasher: TokenHasher;
  readonly #settings: LoginThrottleSettings;
  readonly #clock: Now;
  // The tail of the queue of sign-in attempts per client IP (see `exclusive`).
  readonly #queues = new Map<string, Promise<void>>();

  constructor(store: Store, hasher: TokenHasher, settings: LoginThrottleSettings, clock: Now) {
    this.#store = store;
    this.#hasher = hasher;
    this.#settings = settings;
    this.#clock = clock;
  }

  #keys(email: string, ip: string): Record<ThrottleKeyName, string> {
    return {
      email_ip: this.#hasher.hash('limiter', `login:email-ip:${email} ${ip}`),
      ip: this.#hasher.hash('limiter', `login:ip:${ip}`),
      email: this.#hasher.hash('limiter', `login:email:${email}`),
    };
  }

  /**
   * Runs one sign-in attempt (check, password verification, count) after every earlier attempt
   * from the same client IP, and every earlier attempt on the same email, has finished. The
   * password check awaits the KDF between the throttle check and the count; without these queues
   * a burst of parallel attempts would all pass the check before the first failure is counted and
   * so get far more than the allowed guesses. Every email+IP key belongs to exactly one IP key and
   * one email key, so the two queues serialise all three. They are always entered IP first, so no
   * two attempts can wait on each other.
   */
  exclusive<T>(email: string, ip: string, attempt: () => Promise<T>): Promise<T> {
    return this.#queued(`ip ${ip}`, () => this.#queued(`email ${email}`, attempt));
  }

  async #queued<T>(queue: string, attempt: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(queue) ?? Promise.resolve();
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.#queues.set(queue, tail);
    await previous;
    try {
      return await attempt();
    } finally {
      release();
      if (this.#queues.get(queue) === tail) this.#queues.delete(queue);
    }
  }

  check(email: string, ip: string): ThrottleCheck {
    const keys = this.#keys(email, ip);
    const now = this.#clock();
    return this.#guard(() =>
      this.#store.transaction(() => {
        let longest = 0;
        const firstBlocked: ThrottleKeyName[] = [];
        for (const name of KEY_NAMES) {
          const row = this.#store.limiter.get(keys[name]);
          const lockUntil = row?.lockUntil ? Date.parse(row.lockUntil) : 0;
          if (!row || lockUntil <= now) continue;
          longest = Math.max(longest, lockUntil - now);
          if (!row.reported) {
            this.#store.limiter.put({ ...row, reported: true });
            firstBlocked.push(name);
          }
        }
        return { retryAfterSeconds: longest > 0 ? Math.max(1, Math.ceil(longest / 1000)) : 0, firstBlocked };
      }),
    );
  }

  /** Counts a failure on every key; returns the keys this failure locked. */
  recordFailure(email: string, ip: string): ThrottleKeyName[] {
    const keys = this.#keys(email, ip);
    const now = this.#clock();
    const { windowSeconds, lockSeconds } = this.#settings;
    const limits: Record<ThrottleKeyName, number> = {
      email_ip: this.#settings.maxAttempts,
      ip: this.#settings.ipMaxAttempts,
      // Holds however the client address varies, yet stays above what one client may try.
      email: 3 * this.#settings.maxAttempts,
    };
    return this.#guard(() =>
      this.#store.transaction(() => {
        const locked: ThrottleKeyName[] = [];
        for (const name of KEY_NAMES) {
          const row = this.#store.limiter.get(keys[name]);
          const windowStart = row ? Date.parse(row.windowStartedAt) : 0;
          const fresh = !row || now - windowStart >= windowSeconds * 1000;
          const startedAt = fresh ? now : windowStart;
          let failures = fresh ? 1 : (row?.count ?? 0) + 1;
          let lockUntil = row?.lockUntil ?? null;
          let reported = row?.reported ?? false;
          if (failures >= limits[name]) {
            lockUntil = iso(now + lockSeconds * 1000);
            failures = 0;
            reported = false;
            locked.push(name);
          }
          const expires = Math.max(startedAt + windowSeconds * 1000, lockUntil ? Date.parse(lockUntil) : 0);
          this.#store.limiter.put({
            keyHash: keys[name],
            count: failures,
            windowStartedAt: iso(startedAt),
            lockUntil,
            reported,
            expiresAt: iso(expires),
          });
        }
        return locked;
      }),
    );
  }

  /** A successful sign-in clears only the email+IP key: the IP key still counts other accounts. */
  clearEmailIp(email: string, ip: string): void {
    const keys = this.#keys(email, ip);
    this.#guard(() => this.#store.limiter.delete(keys.email_ip));
  }

  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw new LimiterUnavailable('security limiter storage failed', { cause: error });
    }
  }
}
