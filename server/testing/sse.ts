// Test support: a GraphQL subscription over SSE (yoga's `/graphql` or graphql-sse's `/graphql/stream`,
// distinct connections), read event by event.
import { EventStreamParser } from '../../engine/text/event-stream.ts';

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface Subscription {
  status: number;
  contentType: string | null;
  /** The next `next` payload, or `'complete'` once the server ends the stream. */
  next(): Promise<
    { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } | 'complete'
  >;
  close(): void;
}

export async function subscribe(
  baseUrl: string,
  path: '/graphql' | '/graphql/stream',
  query: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<Subscription> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const queued: SseEvent[] = [];
  // Unbounded: a test reads what its own server sent.
  const parser = new EventStreamParser({
    maxEventSize: Number.POSITIVE_INFINITY,
    maxLineLength: Number.POSITIVE_INFINITY,
    onEvent: ({ type, data }) => {
      queued.push({ event: type, data: data.trim() ? JSON.parse(data) : null });
    },
    onOversized: () => {},
  });
  let finished = false;
  const readEvent = async (): Promise<SseEvent | null> => {
    for (;;) {
      if (queued.length > 0) return queued.shift() as SseEvent;
      if (finished || !reader) return null;
      const chunk = await reader.read();
      if (chunk.done) finished = true;
      else parser.push(decoder.decode(chunk.value, { stream: true }));
    }
  };
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    next: async () => {
      for (;;) {
        const event = await readEvent();
        if (!event || event.event === 'complete') return 'complete';
        if (event.event === 'next' || event.event === 'message')
          return event.data as { data?: unknown; errors?: { message: string }[] };
      }
    },
    close: () => abort.abort(),
  };
}
