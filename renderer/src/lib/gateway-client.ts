// The dashboard viewer's realtime socket (gateway spec §3, document §7.1–§7.2): one WebSocket per
// view carrying every stream, renewal of each credential before it expires (on the gateway's
// `expiresInMs`, so the browser's clock does not matter), and reconnection with every subscription
// re-sent. Time and the socket are injected, so the state machine is tested on a manual clock.

export const GATEWAY_SUBPROTOCOL = 'towpath.gateway.v1';
const PING_MS = 25_000;
const DEAD_AFTER_MS = 60_000;
const RECONNECT_FIRST_MS = 1000;
const RECONNECT_CAP_MS = 30_000;
const RENEW_RETRY_MS = 5000;
const LIMIT_RETRY_MS = 30_000;

/** What the gateway needs to authorise one subscription: a session token, or `machine` auth. */
export type GatewayCredential = { sessionToken: string } | { auth: { bearer?: string; shareToken?: string } };

export interface GatewayMessage {
  type: string;
  id?: string | null;
  [field: string]: unknown;
}

export interface StreamHandlers {
  dashboardId: string;
  datasourceId: string;
  /** A fresh credential: asked at subscribe, before expiry (renew), and after `token_expired`. */
  credential(): Promise<GatewayCredential>;
  onData(value: unknown, message: GatewayMessage): void;
  /** `connecting` / `connected` / `reconnecting` of the upstream, and `lost` for the socket. */
  onStatus?(status: string, message: GatewayMessage | null): void;
  /** The subscription ended for good (`revoked`, `denied`, …); the viewer decides what next. */
  onClosed?(message: GatewayMessage): void;
  onError?(message: GatewayMessage): void;
}

/** The part of the browser's WebSocket the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface GatewayClientOptions {
  /** `ws(s)://<host>/gateway/realtime`; from the page's own origin when omitted. */
  url?: string;
  createSocket?: (url: string) => SocketLike;
  timers?: Timers;
  random?: () => number;
}

interface Stream {
  id: string;
  handlers: StreamHandlers;
  credential: GatewayCredential | null;
  /** When the gateway said the credential ends, on this client's clock (null: never). */
  expiresAt: number | null;
  renewTimer: unknown;
  retryTimer: unknown;
  live: boolean;
}

const browserTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
  now: () => performance.now(),
};

/** §3.4: renew once `expiresInMs − elapsed ≤ min(60 s, expiresInMs / 2)`. */
export function renewDelay(expiresInMs: number): number {
  return Math.max(0, expiresInMs - Math.min(60_000, expiresInMs / 2));
}

/** Document §7.2: 1 s doubling to 30 s, ±20 %. */
export function reconnectDelay(attempt: number, random: () => number): number {
  const base = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class GatewayClient {
  readonly #url: string;
  readonly #createSocket: (url: string) => SocketLike;
  readonly #timers: Timers;
  readonly #random: () => number;
  readonly #streams = new Map<string, Stream>();
  #socket: SocketLike | null = null;
  #open = false;
  #closed = false;
  #attempt = 0;
  #nextId = 1;
  #pingTimer: unknown;
  #deadTimer: unknown;
  #reconnectTimer: unknown;

  constructor(options: GatewayClientOptions = {}) {
    this.#url =
      options.url ??
      `${globalThis.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${globalThis.location.host}/gateway/realtime`;
    this.#createSocket =
      options.createSocket ?? ((url) => new WebSocket(url, GATEWAY_SUBPROTOCOL) as unknown as SocketLike);
    this.#timers = options.timers ?? browserTimers;
    this.#random = options.random ?? Math.random;
    this.#connect();
  }

  get connected(): boolean {
    return this.#open;
  }

  /** Starts a stream; the returned function ends it. */
  subscribe(handlers: StreamHandlers): () => void {
    const stream: Stream = {
      id: `s${this.#nextId++}`,
      handlers,
      credential: null,
      expiresAt: null,
      renewTimer: undefined,
      retryTimer: undefined,
      live: false,
    };
    this.#streams.set(stream.id, stream);
    if (this.#open) void this.#send(stream, false);
    return () => this.#unsubscribe(stream);
  }

  close(): void {
    this.#closed = true;
    for (const stream of [...this.#streams.values()]) this.#forget(stream);
    this.#stopHeartbeat();
    this.#timers.clearTimeout(this.#reconnectTimer);
    this.#socket?.close(1000);
    this.#socket = null;
    this.#open = false;
  }

  #unsubscribe(stream: Stream): void {
    if (!this.#streams.has(stream.id)) return;
    if (this.#open && stream.live) this.#write({ type: 'unsubscribe', id: stream.id });
    this.#forget(stream);
  }

  #forget(stream: Stream): void {
    this.#timers.clearTimeout(stream.renewTimer);
    this.#timers.clearTimeout(stream.retryTimer);
    this.#streams.delete(stream.id);
  }

  // ---- the socket ----

  #connect(): void {
    if (this.#closed) return;
    const socket = this.#createSocket(this.#url);
    this.#socket = socket;
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      this.#open = true;
      this.#attempt = 0;
      this.#startHeartbeat();
      // Every stream again, reusing credentials that have not expired.
      for (const stream of this.#streams.values()) void this.#send(stream, false);
    };
    socket.onmessage = (event) => {
      if (this.#socket !== socket) return;
      this.#heard();
      let message: GatewayMessage;
      try {
        message = JSON.parse(String(event.data)) as GatewayMessage;
      } catch {
        return;
      }
      this.#receive(message);
    };
    socket.onclose = () => {
      if (this.#socket === socket) this.#lost();
    };
  }

  #lost(): void {
    this.#socket = null;
    this.#open = false;
    this.#stopHeartbeat();
    for (const stream of this.#streams.values()) {
      stream.live = false;
      this.#timers.clearTimeout(stream.renewTimer);
      stream.handlers.onStatus?.('lost', null);
    }
    if (this.#closed) return;
    this.#attempt += 1;
    this.#reconnectTimer = this.#timers.setTimeout(
      () => this.#connect(),
      reconnectDelay(this.#attempt, this.#random),
    );
  }

  #startHeartbeat(): void {
    const ping = () => {
      this.#write({ type: 'ping' });
      this.#pingTimer = this.#timers.setTimeout(ping, PING_MS);
    };
    this.#pingTimer = this.#timers.setTimeout(ping, PING_MS);
    this.#heard();
  }

  #stopHeartbeat(): void {
    this.#timers.clearTimeout(this.#pingTimer);
    this.#timers.clearTimeout(this.#deadTimer);
  }

  /** Any server message proves the socket alive; 60 s of silence means it is dead. */
  #heard(): void {
    this.#timers.clearTimeout(this.#deadTimer);
    this.#deadTimer = this.#timers.setTimeout(() => {
      const socket = this.#socket;
      this.#socket = null;
      socket?.close(4000, 'Heartbeat timeout');
      this.#lost();
    }, DEAD_AFTER_MS);
  }

  #write(message: object): void {
    if (this.#open && this.#socket) this.#socket.send(JSON.stringify(message));
  }

  // ---- subscriptions ----

  /** Subscribes (or, with `renew`, renews) with the stream's credential, fetching one if needed. */
  async #send(stream: Stream, renew: boolean): Promise<void> {
    const expired = stream.expiresAt !== null && stream.expiresAt <= this.#timers.now();
    if (renew || !stream.credential || expired) {
      try {
        stream.credential = await stream.handlers.credential();
      } catch (error) {
        stream.handlers.onError?.({
          type: 'error',
          id: stream.id,
          code: 'CREDENTIAL_FAILED',
          message: String(error),
        });
        if (renew) this.#scheduleRenew(stream, RENEW_RETRY_MS);
        return;
      }
    }
    if (!this.#streams.has(stream.id) || !this.#open) return;
    const { dashboardId, datasourceId } = stream.handlers;
    this.#write({
      type: renew ? 'renew' : 'subscribe',
      id: stream.id,
      dashboardId,
      datasourceId,
      ...stream.credential,
    });
  }

  #scheduleRenew(stream: Stream, delayMs: number): void {
    this.#timers.clearTimeout(stream.renewTimer);
    stream.renewTimer = this.#timers.setTimeout(() => {
      if (stream.live) void this.#send(stream, true);
    }, delayMs);
  }

  #credentialTimes(stream: Stream, expiresInMs: unknown): void {
    if (typeof expiresInMs !== 'number') {
      stream.expiresAt = null;
      this.#timers.clearTimeout(stream.renewTimer);
      return;
    }
    stream.expiresAt = this.#timers.now() + expiresInMs;
    this.#scheduleRenew(stream, renewDelay(expiresInMs));
  }

  #retryLater(stream: Stream, delayMs: number): void {
    stream.retryTimer = this.#timers.setTimeout(() => void this.#send(stream, false), delayMs);
  }

  #receive(message: GatewayMessage): void {
    if (message.type === 'pong') return;
    const stream = typeof message.id === 'string' ? this.#streams.get(message.id) : undefined;
    if (!stream) return;
    const { handlers } = stream;
    switch (message.type) {
      case 'subscribed':
        stream.live = true;
        this.#credentialTimes(stream, message.expiresInMs);
        return;
      case 'renewed':
        this.#credentialTimes(stream, message.expiresInMs);
        return;
      case 'data':
        handlers.onData(message.value, message);
        return;
      case 'status':
        handlers.onStatus?.(String(message.status), message);
        return;
      case 'error':
        // A failed renewal leaves the old credential running: try again while it lasts.
        if (message.code === 'RENEW_FAILED') this.#scheduleRenew(stream, RENEW_RETRY_MS);
        handlers.onError?.(message);
        return;
      case 'closed':
        this.#onClosed(stream, message);
        return;
    }
  }

  #onClosed(stream: Stream, message: GatewayMessage): void {
    stream.live = false;
    this.#timers.clearTimeout(stream.renewTimer);
    const retryAfterMs = typeof message.retryAfterMs === 'number' ? message.retryAfterMs : null;
    switch (message.reason) {
      case 'token_expired':
        stream.credential = null;
        void this.#send(stream, false);
        return;
      case 'rate_limited':
      case 'unavailable':
        this.#retryLater(stream, retryAfterMs ?? LIMIT_RETRY_MS);
        stream.handlers.onStatus?.('error', message);
        return;
      case 'limit_reached':
        this.#retryLater(stream, LIMIT_RETRY_MS);
        stream.handlers.onStatus?.('error', message);
        return;
      case 'server_shutdown':
        // As a lost socket: the socket closes next and everything is re-sent on reconnect.
        return;
      default:
        this.#forget(stream);
        stream.handlers.onClosed?.(message);
    }
  }
}
