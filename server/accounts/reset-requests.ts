import { LimiterUnavailable, type RequestQuota } from '../auth/rate-limit.ts';
import type { Logger } from '../log.ts';

/**
 * Requests acted on per email and per client address in an hour; past them a request still answers
 * true but stores and audits nothing, so a script cannot fill the store or the audit log.
 */
export const RESETS_PER_EMAIL_PER_HOUR = 3;
export const RESETS_PER_IP_PER_HOUR = 20;
const HOUR_SECONDS = 3600;

/** Requests waiting to be acted on; beyond this a request is dropped (the answer is still `true`). */
const MAX_PENDING = 1000;

/** How long a request waits before the batch it joined is acted on. */
export const RESET_BATCH_DELAY_MS = 250;

/**
 * `requestPasswordReset` behind its quota, acted on away from the request. The anonymous caller
 * always gets `true`; what happens next must not show in the answer's timing, and whether the
 * email has an account is exactly what would show: storing a token and an audit event costs more
 * than finding nothing. So the request itself does the same work for every address (validation,
 * the quota, a place in the queue) and a timer acts on the batch a moment later. Tokens never leave
 * the server anyway (an admin completes the reset), so the delay costs the user nothing.
 */
export class ResetRequests {
  readonly #quota: RequestQuota;
  readonly #act: (emails: string[]) => void;
  readonly #logger: Logger;
  readonly #delayMs: number;
  #pending: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    quota: RequestQuota,
    act: (emails: string[]) => void,
    logger: Logger,
    delayMs = RESET_BATCH_DELAY_MS,
  ) {
    this.#quota = quota;
    this.#act = act;
    this.#logger = logger;
    this.#delayMs = delayMs;
  }

  /** Counts the request against the email's and the address's quota, and queues it if both had room. */
  request(email: string, ip: string): void {
    if (this.#closed) return;
    let allowed: boolean;
    try {
      allowed = this.#quota.take(
        [
          { key: `reset:email:${email}`, limit: RESETS_PER_EMAIL_PER_HOUR },
          { key: `reset:ip:${ip}`, limit: RESETS_PER_IP_PER_HOUR },
        ],
        HOUR_SECONDS,
      );
    } catch (error) {
      // Fail closed: nothing is acted on while the limiter cannot count.
      if (!(error instanceof LimiterUnavailable)) throw error;
      this.#logger.error(
        { err: error },
        'password reset request dropped: the security limiter is unavailable',
      );
      return;
    }
    if (!allowed || this.#pending.length >= MAX_PENDING) return;
    this.#pending.push(email);
    this.#timer ??= setTimeout(() => this.flush(), this.#delayMs).unref();
  }

  /** Acts on every queued request now (tests call it instead of waiting for the timer). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    try {
      this.#act(batch);
    } catch (error) {
      this.#logger.error({ err: error, requests: batch.length }, 'acting on password reset requests failed');
    }
  }

  /** Acts on what is queued and takes no more; called before the database closes. */
  close(): void {
    this.flush();
    this.#closed = true;
  }
}
