// UTF-8 for streamed text: strict validation, and encoding a long string in slices.
//
// Validation has the same acceptance and error offsets as Python's strict decoder: the reported
// offset is always the first byte of the offending sequence (an invalid start byte, a sequence cut
// short by a bad continuation byte, or a sequence truncated by the end of input). It streams so
// that large G-code files can be checked chunk by chunk without joining them.

/** Incremental validator; feed chunks with `push`, then call `end` once. */
export class Utf8Validator {
  #offset = 0;
  #invalidAt = -1;
  #ended = false;
  // Continuation bytes still expected for the current sequence, and its lead byte's offset.
  #need = 0;
  #seqStart = 0;
  // Allowed range of the next continuation byte; narrower than 80–BF right after E0, ED, F0, F4,
  // which is how overlong forms, surrogates and code points above U+10FFFF are excluded.
  #lo = 0x80;
  #hi = 0xbf;

  /** -1 while everything seen is valid, else the 0-based absolute offset of the first bad sequence. */
  get invalidAt(): number {
    return this.#invalidAt;
  }

  push(chunk: Uint8Array): void {
    if (this.#ended) throw new RangeError('Utf8Validator: push after end');
    if (this.#invalidAt >= 0) return;
    const base = this.#offset;
    this.#offset += chunk.length;
    const n = chunk.length;
    let need = this.#need;
    let lo = this.#lo;
    let hi = this.#hi;
    let i = 0;
    while (i < n) {
      if (need === 0) {
        // ASCII fast path: the common case for .wind and G-code text.
        let b = chunk[i] as number;
        while (b < 0x80) {
          i++;
          if (i === n) break;
          b = chunk[i] as number;
        }
        if (i === n) break;
        this.#seqStart = base + i;
        if (b < 0xc2 || b > 0xf4) {
          this.#invalidAt = base + i;
          return;
        }
        lo = 0x80;
        hi = 0xbf;
        if (b < 0xe0) {
          need = 1;
        } else if (b < 0xf0) {
          need = 2;
          if (b === 0xe0) lo = 0xa0;
          else if (b === 0xed) hi = 0x9f;
        } else {
          need = 3;
          if (b === 0xf0) lo = 0x90;
          else if (b === 0xf4) hi = 0x8f;
        }
        i++;
        continue;
      }
      const c = chunk[i] as number;
      if (c < lo || c > hi) {
        this.#invalidAt = this.#seqStart;
        return;
      }
      lo = 0x80;
      hi = 0xbf;
      need--;
      i++;
    }
    this.#need = need;
    this.#lo = lo;
    this.#hi = hi;
  }

  /** Marks the end of input; a sequence still open is truncated and therefore invalid. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#invalidAt < 0 && this.#need > 0) this.#invalidAt = this.#seqStart;
  }
}

/** Offset of the first byte of the first invalid sequence, or -1 when `bytes` is strict UTF-8. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const validator = new Utf8Validator();
  validator.push(bytes);
  validator.end();
  return validator.invalidAt;
}

/** UTF-8 encodes `text` in slices so a long program never exists twice in memory at once. */
export function* utf8Slices(text: string, sliceChars = 1 << 16): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  // One extra char of room: a slice may grow by one to keep a surrogate pair whole.
  const out = new Uint8Array((sliceChars + 1) * 3);
  let i = 0;
  while (i < text.length) {
    let j = Math.min(text.length, i + sliceChars);
    // Never cut a surrogate pair: each half alone would encode as U+FFFD.
    const last = text.charCodeAt(j - 1);
    if (j < text.length && last >= 0xd800 && last <= 0xdbff) j = j - 1 > i ? j - 1 : j + 1;
    const { written } = encoder.encodeInto(text.slice(i, j), out);
    yield out.subarray(0, written);
    i = j;
  }
}
