// Server-sent events with named event types, read with fetch rather than EventSource: EventSource
// cannot send an Authorization header, and a signed-in LAN viewer's machine events need the bearer.
// It reconnects as EventSource does (the server's `retry:`, `Last-Event-ID`), except after 401 or
// 403: asking again with the same credentials would be refused again, so the caller is told and
// subscribes anew when the session changes.
import { EventStreamParser } from '#engine/text/event-stream.ts';

export interface SseSubscription {
  close(): void;
}

export interface SseEvent {
  type: string;
  data: string;
  id: string;
}

export interface SseOptions {
  /** Request headers, asked for at every (re)connection so a new session token is used. */
  headers?: () => Record<string, string>;
  /** The server refused the stream (401, 403); no reconnection follows. */
  onRefused?: (status: number, detail: string | null) => void;
  /** Wait before reconnecting, until the server sets its own with `retry:`. */
  retryMs?: number;
}

const DEFAULT_RETRY_MS = 2_000;
/** The most text one event (or one unfinished line) may hold: a stream that exceeds it is dropped. */
export const MAX_EVENT_CHARS = 1 << 20;

export class SseOverflowError extends Error {
  constructor() {
    super(`an event longer than ${MAX_EVENT_CHARS} characters`);
    this.name = 'SseOverflowError';
  }
}

/**
 * The engine's event-stream parser with this reader's limits: feed it decoded text in any pieces; it
 * calls `dispatch` once per complete event and `retry` when the server sets a reconnection time. An
 * event or line longer than MAX_EVENT_CHARS throws SseOverflowError rather than grow without bound.
 */
export function createSseParser(dispatch: (event: SseEvent) => void, retry?: (ms: number) => void) {
  const overflow = () => {
    throw new SseOverflowError();
  };
  const parser = new EventStreamParser({
    maxEventSize: MAX_EVENT_CHARS,
    maxLineLength: MAX_EVENT_CHARS,
    onEvent: (event) => dispatch({ type: event.type, data: event.data, id: event.lastEventId }),
    ...(retry ? { onRetry: retry } : {}),
    onOversized: overflow,
    onOverflow: overflow,
  });
  return {
    push(text: string): void {
      parser.push(text);
    },
    get lastEventId(): string {
      return parser.lastEventId ?? '';
    },
  };
}

export function subscribeEvents(
  url: string,
  handlers: Record<string, (data: unknown) => void>,
  onConnection?: (open: boolean) => void,
  options: SseOptions = {},
): SseSubscription {
  const abort = new AbortController();
  let retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastEventId = '';
  const dispatch = (event: SseEvent) => {
    lastEventId = event.id;
    const handler = handlers[event.type];
    if (!handler) return;
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    handler(data);
  };

  const connect = async (): Promise<void> => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers?.() };
    if (lastEventId !== '') headers['last-event-id'] = lastEventId;
    // A fresh parser per connection: a half-received event from a broken one is not continued.
    const parser = createSseParser(dispatch, (ms) => {
      retryMs = ms;
    });
    let response: Response;
    try {
      response = await fetch(url, { headers, cache: 'no-store', signal: abort.signal });
    } catch {
      return again();
    }
    if (response.status === 401 || response.status === 403) {
      const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
      onConnection?.(false);
      options.onRefused?.(response.status, typeof body?.detail === 'string' ? body.detail : null);
      return;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      return again();
    }
    onConnection?.(true);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch {
      // The connection broke, was closed by us, or sent an event too long to keep: the stream is over.
      await reader.cancel().catch(() => {});
    }
    return again();
  };

  const again = () => {
    if (abort.signal.aborted) return;
    onConnection?.(false);
    timer = setTimeout(() => void connect(), retryMs);
  };

  void connect();
  return {
    close: () => {
      abort.abort();
      clearTimeout(timer);
    },
  };
}
