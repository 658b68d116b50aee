// A list answer without parsing every item (spec §4.3 pages on the bridge's side, so a `--limit 20`
// on a store of 100,000 tasks would otherwise build 100,000 objects to show 20). The scanner checks
// the whole body with JSON's grammar, like JSON.parse, but only records where each item of
// `{"ok":true,"data":[…]}` starts and ends; the items asked for are parsed when they are read.
// Whenever it cannot vouch for the body (not JSON, another shape, escaped or odd envelope keys), it
// answers undefined and the caller parses the body whole, so its answers never differ from JSON.parse.

/** The `data` array of a success envelope, parsed item by item on demand. */
export class LazyList {
  readonly length: number;
  readonly #body: Buffer;
  readonly #spans: number[];

  constructor(body: Buffer, spans: number[]) {
    this.#body = body;
    this.#spans = spans;
    this.length = spans.length / 2;
  }

  /** Like Array.prototype.slice for non-negative bounds: the items start ≤ i < end, parsed. */
  slice(start = 0, end: number = this.length): unknown[] {
    const first = Math.max(0, start);
    const last = Math.min(end, this.length) - 1;
    if (last < first) return [];
    // The bytes from the first item's start to the last one's end are those items with the commas
    // between them: one parse for the whole page.
    return JSON.parse(
      `[${this.#body.toString('utf8', this.#spans[2 * first], this.#spans[2 * last + 1])}]`,
    ) as unknown[];
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function space(b: Buffer, i: number): number {
  const n = b.length;
  for (;;) {
    if (i >= n) return i;
    const c = b[i] as number;
    // Most bytes are above the space: one comparison settles them.
    if (c > 0x20 || !isSpace(c)) return i;
    i++;
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Set by `string` when the last string it read held an escape. */
let escaped = false;

/** 1 for bytes that end a run of plain string text: the quote, the backslash, control characters. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[0x22] = 1;
STRING_STOP[0x5c] = 1;

/** The index after the string starting at `i` (a quote), or -1. */
function string(b: Buffer, i: number): number {
  const n = b.length;
  escaped = false;
  i++;
  for (;;) {
    // Bytes from 0x80 up are text: invalid UTF-8 decodes to U+FFFD inside the string either way.
    while (i < n && STRING_STOP[b[i] as number] === 0) i++;
    if (i >= n) return -1;
    const c = b[i] as number;
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1;
    escaped = true;
    const e = i + 1 < n ? (b[i + 1] as number) : -1;
    if (e === 0x75) {
      if (i + 5 >= n) return -1;
      for (let k = i + 2; k < i + 6; k++) if (!isHex(b[k] as number)) return -1;
      i += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    )
      i += 2;
    else return -1;
  }
}

function digits(b: Buffer, i: number): number {
  const start = i;
  while (i < b.length && (b[i] as number) >= 0x30 && (b[i] as number) <= 0x39) i++;
  return i > start ? i : -1;
}

/** The index after the number starting at `i`, or -1. */
function number(b: Buffer, i: number): number {
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else {
    i = digits(b, i);
    if (i < 0) return -1;
  }
  if (b[i] === 0x2e) {
    i = digits(b, i + 1);
    if (i < 0) return -1;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    i = digits(b, i);
  }
  return i;
}

function word(b: Buffer, i: number, text: string): number {
  for (let k = 0; k < text.length; k++) if (b[i + k] !== text.charCodeAt(k)) return -1;
  return i + text.length;
}

/** Open containers of the value being skipped: the byte that opened each ({ or [). */
let open = new Uint8Array(256);

/** The index after `"key"` + spaces + `:` + spaces at `i`, or -1. */
function member(b: Buffer, i: number): number {
  if (b[i] !== 0x22) return -1;
  i = string(b, i);
  if (i < 0) return -1;
  i = space(b, i);
  return b[i] === 0x3a ? space(b, i + 1) : -1;
}

/**
 * The index after the JSON value starting at `i`, or -1. One loop over the bytes with the open
 * containers on a byte stack: no recursion and no call per token but for strings and numbers, as
 * it runs over every byte of answers tens of megabytes long.
 */
function value(b: Buffer, i: number): number {
  const n = b.length;
  let depth = 0;
  for (;;) {
    const c = i < n ? (b[i] as number) : -1;
    if (c === 0x22) i = string(b, i);
    else if (c === 0x7b || c === 0x5b) {
      i = space(b, i + 1);
      // The closing byte is two above the opening one: { } and [ ].
      if (b[i] === c + 2) i++;
      else {
        if (depth === open.length) {
          const grown = new Uint8Array(depth * 2);
          grown.set(open);
          open = grown;
        }
        open[depth++] = c;
        if (c === 0x7b) {
          i = member(b, i);
          if (i < 0) return -1;
        }
        continue;
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = number(b, i);
    else if (c === 0x74) i = word(b, i, 'true');
    else if (c === 0x66) i = word(b, i, 'false');
    else if (c === 0x6e) i = word(b, i, 'null');
    else return -1;
    if (i < 0) return -1;
    // After a value: close finished containers, or move on to the next item or member.
    for (;;) {
      if (depth === 0) return i;
      i = space(b, i);
      const top = open[depth - 1] as number;
      const d = b[i];
      if (d === 0x2c) {
        i = space(b, i + 1);
        if (top === 0x7b) i = member(b, i);
        if (i < 0) return -1;
        break;
      }
      if (d !== top + 2) return -1;
      depth--;
      i++;
    }
  }
}

/** Start and end of each item of the array at `i` (a `[`), and the index after it; or undefined. */
function items(b: Buffer, i: number): { spans: number[]; end: number } | undefined {
  const spans: number[] = [];
  i = space(b, i + 1);
  if (b[i] === 0x5d) return { spans, end: i + 1 };
  for (;;) {
    const end = value(b, i);
    if (end < 0) return undefined;
    spans.push(i, end);
    i = space(b, end);
    if (b[i] === 0x5d) return { spans, end: i + 1 };
    if (b[i] !== 0x2c) return undefined;
    i = space(b, i + 1);
  }
}

/**
 * The items of `{"ok":true,"data":[…]}` (any key order, other keys allowed, the last duplicate
 * wins as in JSON.parse), or undefined when the body is not exactly that in valid JSON.
 */
export function scanListEnvelope(b: Buffer): LazyList | undefined {
  let i = space(b, 0);
  if (b[i] !== 0x7b) return undefined;
  i = space(b, i + 1);
  if (b[i] === 0x7d) return undefined;
  let ok = false;
  let data: number[] | undefined;
  for (;;) {
    const keyStart = i + 1;
    i = member(b, i);
    if (i < 0 || escaped) return undefined;
    const key = b.toString('latin1', keyStart, b.lastIndexOf(0x22, i - 1));
    if (key === 'data') {
      if (b[i] === 0x5b) {
        const list = items(b, i);
        if (!list) return undefined;
        data = list.spans;
        i = list.end;
      } else {
        data = undefined;
        i = value(b, i);
        if (i < 0) return undefined;
      }
    } else {
      const start = i;
      i = value(b, i);
      if (i < 0) return undefined;
      if (key === 'ok') ok = i - start === 4 && b[start] === 0x74;
    }
    i = space(b, i);
    if (b[i] === 0x7d) break;
    if (b[i] !== 0x2c) return undefined;
    i = space(b, i + 1);
  }
  if (space(b, i + 1) !== b.length) return undefined;
  return ok && data ? new LazyList(b, data) : undefined;
}
