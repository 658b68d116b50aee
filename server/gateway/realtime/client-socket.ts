// One browser's realtime socket (gateway spec §3.1, §3.5): frame and rate limits, heartbeats, the
// idle close, and sending that never waits: a client that cannot keep up is dropped, not waited for.
import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import type { GatewayMetrics } from '../metrics.ts';
import {
  CLIENT_RATE_LIMIT,
  CLIENT_RATE_WINDOW_MS,
  CLOSE,
  HEARTBEAT_TIMEOUT_MS,
  MAX_CLIENT_MESSAGE_BYTES,
  MAX_INVALID_MESSAGES,
  MAX_UNSENT_BYTES,
  NO_SUBSCRIPTIONS_MS,
  SERVER_PING_MS,
} from './protocol.ts';
import type { Subscription } from './subscription.ts';

export interface ClientSocketEvents {
  /** One text frame, within the size and rate limits. */
  message(client: ClientSocket, text: string): void;
  closed(client: ClientSocket, code: number): void;
}

export class ClientSocket {
  readonly id = randomBytes(6).toString('hex');
  readonly ip: string;
  /** The peer's port: with `ip`, which connection this is (logs, tests). */
  readonly remotePort: number | undefined;
  readonly openedAt = Date.now();
  /** Live subscriptions by the client's id. */
  readonly subscriptions = new Map<string, Subscription>();
  /** Ids whose subscribe is being checked (they count as in use). */
  readonly pending = new Set<string>();
  closed = false;
  #invalid = 0;
  #windowStart = Date.now();
  #inWindow = 0;
  readonly #ws: WebSocket;
  readonly #metrics: GatewayMetrics;
  readonly #events: ClientSocketEvents;
  readonly #ping: NodeJS.Timeout;
  readonly #heartbeat: NodeJS.Timeout;
  #idle: NodeJS.Timeout | undefined;
  #corked = false;

  constructor(
    ws: WebSocket,
    ip: string,
    remotePort: number | undefined,
    metrics: GatewayMetrics,
    events: ClientSocketEvents,
  ) {
    this.#ws = ws;
    this.ip = ip;
    this.remotePort = remotePort;
    this.#metrics = metrics;
    this.#events = events;
    this.#ping = setInterval(() => ws.ping(), SERVER_PING_MS);
    this.#heartbeat = setTimeout(() => this.close(...CLOSE.heartbeat), HEARTBEAT_TIMEOUT_MS);
    this.#ping.unref();
    this.#heartbeat.unref();
    this.subscriptionsChanged();
    ws.on('pong', () => this.#heartbeat.refresh());
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => this.#receive(data, isBinary));
    ws.on('error', () => {
      this.#metrics.realtimeErrorCount += 1;
    });
    ws.on('close', (code: number) => this.#gone(code));
  }

  #receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.#heartbeat.refresh();
    if (isBinary) {
      this.close(...CLOSE.binary);
      return;
    }
    this.#metrics.realtimeMessagesIn += 1;
    const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer).length;
    if (bytes > MAX_CLIENT_MESSAGE_BYTES) {
      this.close(...CLOSE.tooLarge);
      return;
    }
    const now = Date.now();
    if (now - this.#windowStart >= CLIENT_RATE_WINDOW_MS) {
      this.#windowStart = now;
      this.#inWindow = 0;
    }
    this.#inWindow += 1;
    if (this.#inWindow > CLIENT_RATE_LIMIT) {
      this.close(...CLOSE.tooMany);
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8');
    this.#events.message(this, text);
  }

  /** An `INVALID_MESSAGE` was answered; the 20th closes the socket. */
  countInvalid(): void {
    this.#invalid += 1;
    if (this.#invalid >= MAX_INVALID_MESSAGES) this.close(...CLOSE.tooManyInvalid);
  }

  /** Arms the "No subscriptions" close while nothing is live. */
  subscriptionsChanged(): void {
    const empty = this.subscriptions.size === 0 && this.pending.size === 0;
    if (empty && !this.#idle) {
      this.#idle = setTimeout(() => this.close(...CLOSE.normal), NO_SUBSCRIPTIONS_MS);
      this.#idle.unref();
    } else if (!empty && this.#idle) {
      clearTimeout(this.#idle);
      this.#idle = undefined;
    }
  }

  send(message: { type: string; [field: string]: unknown }): void {
    if (message.type === 'error') this.#metrics.realtimeErrorCount += 1;
    this.sendText(JSON.stringify(message));
  }

  /** Writes one JSON text unless the socket is gone; past 4 MiB unsent the client is dropped. */
  sendText(text: string): void {
    if (this.closed || this.#ws.readyState !== this.#ws.OPEN) return;
    if (this.#ws.bufferedAmount > MAX_UNSENT_BYTES) {
      this.close(...CLOSE.slow);
      return;
    }
    this.#cork();
    this.#ws.send(text);
    this.#metrics.realtimeMessagesOut += 1;
  }

  /**
   * Frames written in one turn of the event loop (every upstream message read in that turn) leave
   * in one write: fan-out to hundreds of sockets would otherwise cost one system call per frame.
   */
  #cork(): void {
    if (this.#corked) return;
    const socket = (this.#ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!socket) return;
    this.#corked = true;
    socket.cork();
    setImmediate(() => {
      this.#corked = false;
      socket.uncork();
    });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    if (code !== 1000 && code !== 1001) this.#metrics.realtimeErrorCount += 1;
    // A client too slow to read its close frame would keep the socket forever: cut it after a while.
    if (code === CLOSE.slow[0]) {
      this.#ws.close(code, reason);
      setTimeout(() => this.#ws.terminate(), 1000).unref();
      this.#gone(code);
      return;
    }
    this.#ws.close(code, reason);
    this.#gone(code);
  }

  /** Drops the connection without a close handshake (shutdown after the grace period). */
  terminate(): void {
    this.#ws.terminate();
    this.#gone(1006);
  }

  #gone(code: number): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.#ping);
    clearTimeout(this.#heartbeat);
    clearTimeout(this.#idle);
    this.#events.closed(this, code);
  }
}
