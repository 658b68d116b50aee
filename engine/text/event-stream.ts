// The event-stream format (WHATWG HTML §9.2.6), parsed incrementally from decoded text in pieces of
// any size: lines end in CR, LF or CRLF (a CR at the end of one piece may be half of a CRLF); `data`
// lines join with LF; a blank line dispatches; `:` lines are comments; `id` persists from event to
// event; a leading BOM is dropped. Bounded: an event's data past its limit is not kept, nor is a line
// that never ends. Every reader of an event stream (the renderer, the gateway's SSE upstreams, the
// core's link to the machine process, tests) uses this one.

export interface EventStreamEvent {
  /** Its `event:` field, or `message` when it had none. */
  type: string;
  data: string;
  /** The last `id:` seen up to this event ('' before any). */
  lastEventId: string;
  /** The size of `data`, counted by the parser's `measure`. */
  size: number;
}

export interface EventStreamOptions {
  onEvent(event: EventStreamEvent): void;
  /** A valid `retry:` field: the reconnection time the server asks for, in milliseconds. */
  onRetry?(ms: number): void;
  /**
   * An event whose data is larger than `maxEventSize`, told at its blank line with its whole size (its
   * data was not kept); or an unfinished line longer than `maxLineLength`, told at once with its
   * length (the line, and the event it is part of, are dropped).
   */
  onOversized(size: number): void;
  /** Told once when an event's data first grows past `maxEventSize`, before the event ends. */
  onOverflow?(size: number): void;
  /** The most data one event may hold, counted by `measure`. */
  maxEventSize: number;
  /** The longest line kept while its end has not arrived, in UTF-16 code units. */
  maxLineLength: number;
  /** How data is counted: UTF-16 code units unless given (a reader may count UTF-8 bytes). */
  measure?: (text: string) => number;
}

const length = (text: string) => text.length;

export class EventStreamParser {
  readonly #options: EventStreamOptions;
  readonly #measure: (text: string) => number;
  #buffer = '';
  #type = '';
  #data: string[] = [];
  /** The size of the event's data so far, plus one for each line (the LF that would follow it). */
  #size = 0;
  /** The event lost a line to the line limit: it is dropped at its blank line, already reported. */
  #dropped = false;
  /** The rest of a line dropped for its length is skipped up to its end. */
  #skipping = false;
  #firstPiece = true;
  #pendingCr = false;
  /** The last `id:` seen (a reader sends it back as `Last-Event-ID`); null before any. */
  lastEventId: string | null = null;

  constructor(options: EventStreamOptions) {
    this.#options = options;
    this.#measure = options.measure ?? length;
  }

  push(piece: string): void {
    let text = piece;
    if (this.#firstPiece) {
      this.#firstPiece = false;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    // What is left of earlier pieces holds no line end: the scan starts where the new text does.
    const buffer = this.#buffer + text;
    let start = 0;
    for (let i = this.#buffer.length; i < buffer.length; i += 1) {
      const ch = buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      if (this.#skipping) this.#skipping = false;
      else this.#line(buffer.slice(start, i));
      if (ch === '\r') {
        if (i + 1 === buffer.length) this.#pendingCr = true;
        else if (buffer[i + 1] === '\n') i += 1;
      }
      start = i + 1;
    }
    this.#buffer = this.#skipping ? '' : buffer.slice(start);
    // A line that never ends cannot grow without bound either.
    if (this.#buffer.length > this.#options.maxLineLength) {
      const size = this.#buffer.length;
      this.#buffer = '';
      this.#data = [];
      this.#dropped = true;
      this.#skipping = true;
      this.#options.onOversized(size);
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
      const fitted = this.#size - 1 <= this.#options.maxEventSize;
      this.#size += this.#measure(value) + 1;
      if (this.#size - 1 <= this.#options.maxEventSize) this.#data.push(value);
      else if (fitted && !this.#dropped) {
        this.#data = [];
        this.#options.onOverflow?.(this.#size - 1);
      }
    } else if (field === 'event') this.#type = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.#options.onRetry?.(Number(value));
  }

  #dispatch(): void {
    const size = this.#size - 1;
    const data = this.#data;
    const type = this.#type || 'message';
    const dropped = this.#dropped;
    this.#data = [];
    this.#size = 0;
    this.#type = '';
    this.#dropped = false;
    if (dropped || size < 0) return;
    if (size > this.#options.maxEventSize) {
      this.#options.onOversized(size);
      return;
    }
    this.#options.onEvent({ type, data: data.join('\n'), lastEventId: this.lastEventId ?? '', size });
  }
}
