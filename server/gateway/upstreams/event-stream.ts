// The WHATWG event-stream format, parsed incrementally: lines end in CR, LF or CRLF; `data` lines
// join with LF; a blank line dispatches; `:` lines are comments; `id` and `retry` persist.

export interface StreamEvent {
  event: string;
  data: string;
  /** Bytes of the event's data (the size the message limit is checked against). */
  bytes: number;
}

export class EventStreamParser {
  #buffer = '';
  #data: string[] = [];
  #dataBytes = 0;
  #event = '';
  #firstChunk = true;
  #pendingCr = false;
  /** The last `id:` seen (sent back as `last-event-id` on reconnect). */
  lastEventId: string | null = null;
  /** The last valid `retry:` in milliseconds. */
  retryMs: number | null = null;
  readonly maxBytes: number;
  readonly onEvent: (event: StreamEvent) => void;
  readonly onOversized: (bytes: number) => void;

  /** An event whose data grows past `maxBytes` is dropped (`onOversized` is called instead). */
  constructor(maxBytes: number, onEvent: (event: StreamEvent) => void, onOversized: (bytes: number) => void) {
    this.maxBytes = maxBytes;
    this.onEvent = onEvent;
    this.onOversized = onOversized;
  }

  push(chunk: string): void {
    let text = chunk;
    if (this.#firstChunk) {
      this.#firstChunk = false;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i += 1) {
      const ch = this.#buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      this.#line(this.#buffer.slice(start, i));
      if (ch === '\r') {
        if (i + 1 === this.#buffer.length) this.#pendingCr = true;
        else if (this.#buffer[i + 1] === '\n') i += 1;
      }
      start = i + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    // A line that never ends cannot grow without bound either.
    if (this.#buffer.length > this.maxBytes * 2) {
      this.onOversized(this.#buffer.length);
      this.#buffer = '';
      this.#data = [];
      this.#dataBytes = Number.POSITIVE_INFINITY;
    }
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#dataBytes += Buffer.byteLength(value) + 1;
      if (this.#dataBytes <= this.maxBytes) this.#data.push(value);
    } else if (field === 'event') this.#event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  #dispatch(): void {
    const bytes = this.#dataBytes;
    const data = this.#data;
    const event = this.#event || 'message';
    this.#data = [];
    this.#dataBytes = 0;
    this.#event = '';
    if (bytes === 0) return;
    if (bytes - 1 > this.maxBytes) {
      this.onOversized(bytes - 1);
      return;
    }
    this.onEvent({ event, data: data.join('\n'), bytes: bytes - 1 });
  }
}
