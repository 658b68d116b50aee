// One upstream message, parsed per the intent's `parser` at most once per parser however many
// subscriptions receive it: fan-out to hundreds of sockets must not parse hundreds of times.
import { parseCsv } from '../csv.ts';

export type Parser = 'json' | 'text' | 'csv';

export class UpstreamMessage {
  readonly #json = new Map<string, string | null>();

  readonly text: string;
  readonly bytes: number;
  /** Receipt time, ISO 8601 UTC with milliseconds. */
  readonly at: string;
  /** `removed`: a zero-length payload on a wildcard filter, which deletes its topic. */
  readonly meta: { topic?: string; event?: string; removed?: boolean };

  constructor(
    text: string,
    bytes: number,
    at: string,
    meta: { topic?: string; event?: string; removed?: boolean } = {},
  ) {
    this.text = text;
    this.bytes = bytes;
    this.at = at;
    this.meta = meta;
  }

  /** The value as JSON text for `parser`, or null when a `json` payload does not parse. */
  valueJson(parser: unknown): string | null {
    const key = parser === 'text' || parser === 'csv' ? parser : 'json';
    let cached = this.#json.get(key);
    if (cached === undefined) {
      cached = encode(key, this.text);
      this.#json.set(key, cached);
    }
    return cached;
  }
}

function encode(parser: Parser, text: string): string | null {
  if (parser === 'text') return JSON.stringify(text);
  if (parser === 'csv') return JSON.stringify(parseCsv(text));
  if (text.trim() === '') return 'null';
  try {
    // Re-serialised so the outbound frame holds exactly one canonical JSON value.
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}
