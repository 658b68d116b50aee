// Server-sent events on a fastify reply, for every door: the headers, `id:`/`event:`/`data:` framing,
// a keep-alive comment so proxies and idle timers leave the stream open, and one cleanup path
// whether the client leaves or the server ends the stream.
import type { FastifyReply } from 'fastify';

const HEARTBEAT_MS = 15_000;

export interface SseStream {
  /** Sends one event; a no-op once the stream has ended. */
  send(event: string, data: unknown, id?: number): void;
  /** Ends the stream from the server side (runs the cleanup). */
  end(): void;
  readonly closed: boolean;
}

export interface SseOptions {
  /** Extra response headers (CORS, for one). */
  headers?: Record<string, string>;
  /** Runs once when the stream ends, however it ends. */
  onClose?: () => void;
  heartbeatMs?: number;
}

/** Takes over the reply and opens an event stream on it. */
export function openSse(reply: FastifyReply, options: SseOptions = {}): SseStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...options.headers,
  });
  // Headers out at once: a client waiting for the first event must know the stream is open.
  raw.flushHeaders();
  const gone = () => raw.writableEnded || raw.destroyed;
  const heartbeat = setInterval(() => {
    if (!gone()) raw.write(': keep-alive\n\n');
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  let closed = false;
  const cleanup = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    options.onClose?.();
  };
  raw.once('close', cleanup);
  return {
    send(event, data, id) {
      if (gone()) return;
      raw.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      cleanup();
      if (!gone()) raw.end();
    },
    get closed() {
      return closed;
    },
  };
}
