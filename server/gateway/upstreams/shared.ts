// The life of one shared upstream (gateway spec §4): many subscriptions, one connection; status
// fanned out to all of them; reconnect with backoff on a retriable failure; the last value replayed
// to a subscription that joins a live upstream; closed with its last subscription.
import type { Logger } from '../../log.ts';
import {
  EgressError,
  type EgressPolicy,
  type ResolvedAddress,
  type Resolver,
  resolveUpstream,
} from '../egress.ts';
import type { UpstreamMessage } from './payload.ts';

export type UpstreamState = 'connecting' | 'connected' | 'reconnecting';
export type ProblemCode = 'MESSAGE_TOO_LARGE' | 'PARSE_ERROR';
export type FailReason = 'upstream_failed' | 'egress_refused';

/** A subscription as an upstream sees it. */
export interface UpstreamSink {
  status(state: UpstreamState, detail?: { message: string; retryInMs: number }): void;
  data(message: UpstreamMessage, replay: boolean): void;
  problem(code: ProblemCode, message: string): void;
  /** The upstream gave up for good: the subscription closes with this reason. */
  fail(reason: FailReason, message: string): void;
}

export interface UpstreamContext {
  egress: EgressPolicy;
  connectTimeoutMs: number;
  maxMessageBytes: number;
  logger: Logger;
  /** Tests replace DNS; the OS resolver otherwise. */
  resolver?: Resolver;
  /** uniform [0, 1): the backoff's jitter. */
  random?: () => number;
}

export const BACKOFF_CAP_MS = 30_000;
export const STABLE_AFTER_MS = 10_000;

/** §4.2: the n-th consecutive retry after min(30 s, floor × 2^(n−1)) × uniform(0.8, 1.2). */
export function retryDelay(attempt: number, random: () => number, floorMs = 1000): number {
  const base = Math.min(BACKOFF_CAP_MS, floorMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export abstract class SharedUpstream {
  readonly sinks = new Set<UpstreamSink>();
  state: UpstreamState = 'connecting';
  protected last: UpstreamMessage | undefined;
  protected closed = false;
  #attempt = 0;
  #detail: { message: string; retryInMs: number } | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #stableTimer: NodeJS.Timeout | undefined;

  protected readonly ctx: UpstreamContext;
  readonly url: URL;
  readonly port: number;
  /** The applied intent (credentials included) this upstream serves. */
  readonly intent: Record<string, unknown>;
  /** Runs once when the upstream is gone (last subscription left or it failed for good). */
  readonly #onGone: () => void;

  constructor(
    ctx: UpstreamContext,
    url: URL,
    port: number,
    onGone: () => void,
    intent: Record<string, unknown>,
  ) {
    this.ctx = ctx;
    this.url = url;
    this.port = port;
    this.intent = intent;
    this.#onGone = onGone;
  }

  protected get logger(): Logger {
    return this.ctx.logger;
  }

  add(sink: UpstreamSink): void {
    this.sinks.add(sink);
    if (this.state === 'connected') {
      sink.status('connected');
      if (this.last) sink.data(this.last, true);
    } else sink.status(this.state, this.state === 'reconnecting' ? this.#detail : undefined);
    if (this.sinks.size === 1 && !this.started) this.start();
  }

  remove(sink: UpstreamSink): void {
    if (!this.sinks.delete(sink) || this.sinks.size > 0) return;
    this.close();
  }

  #started = false;
  protected get started(): boolean {
    return this.#started;
  }

  start(): void {
    this.#started = true;
    void this.#open();
  }

  /** Closes the connection and forgets the upstream. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#stableTimer);
    this.teardown();
    this.#onGone();
  }

  async #open(): Promise<void> {
    if (this.closed) return;
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolveUpstream(this.ctx.egress, this.url.hostname, this.port, this.ctx.resolver);
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      if (error.failure === 'unresolved') this.retry(error.message);
      else {
        this.logger.warn(
          {
            event: 'gateway.egress.refused',
            host: error.details.host,
            address: error.details.address,
            class: error.details.class,
          },
          'gateway.egress.refused',
        );
        this.failAll('egress_refused', error.message);
      }
      return;
    }
    if (this.closed) return;
    this.connect(addresses[0] as ResolvedAddress);
  }

  /** Opens one connection attempt to the checked address. */
  protected abstract connect(address: ResolvedAddress): void;
  /** Drops the current connection attempt or connection, if any. */
  protected abstract teardown(): void;

  protected connected(): void {
    if (this.closed) return;
    this.state = 'connected';
    this.#detail = undefined;
    clearTimeout(this.#stableTimer);
    this.#stableTimer = setTimeout(() => {
      this.#attempt = 0;
    }, STABLE_AFTER_MS);
    this.#stableTimer.unref();
    for (const sink of [...this.sinks]) sink.status('connected');
    this.logger.info(
      { event: 'gateway.upstream.connected', host: this.url.host, subscribers: this.sinks.size },
      'gateway.upstream.connected',
    );
  }

  /** A retriable failure: `reconnecting` to everyone, then another attempt after the backoff. */
  protected retry(message: string, floorMs = 1000): void {
    if (this.closed) return;
    this.teardown();
    clearTimeout(this.#stableTimer);
    clearTimeout(this.#retryTimer);
    this.#attempt += 1;
    const retryInMs = retryDelay(this.#attempt, this.ctx.random ?? Math.random, floorMs);
    this.state = 'reconnecting';
    this.#detail = { message, retryInMs };
    for (const sink of [...this.sinks]) sink.status('reconnecting', this.#detail);
    this.logger.info(
      { event: 'gateway.upstream.reconnecting', host: this.url.host, attempt: this.#attempt, retryInMs },
      'gateway.upstream.reconnecting',
    );
    this.#retryTimer = setTimeout(() => void this.#open(), retryInMs);
    this.#retryTimer.unref();
  }

  /** A non-retriable failure: every subscription closes. */
  protected failAll(reason: FailReason, message: string): void {
    if (this.closed) return;
    const sinks = [...this.sinks];
    this.sinks.clear();
    this.logger.info(
      { event: 'gateway.upstream.failed', host: this.url.host, reason },
      'gateway.upstream.failed',
    );
    this.close();
    for (const sink of sinks) sink.fail(reason, message);
  }

  protected deliver(message: UpstreamMessage): void {
    this.last = message;
    for (const sink of [...this.sinks]) sink.data(message, false);
  }

  protected problem(code: ProblemCode, message: string): void {
    for (const sink of [...this.sinks]) sink.problem(code, message);
  }
}
