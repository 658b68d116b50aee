// Splits a byte stream arriving in arbitrary chunks into lines (CRLF, LF or CR, spec §5) without
// copying complete lines: only a line cut by a chunk boundary is gathered in a carry buffer.

export interface LineSink {
  /** One line without its terminator. `buf` may be reused after the call returns. */
  line(buf: Uint8Array, start: number, end: number): void;
}

function indexOrEnd(chunk: Uint8Array, byte: number, from: number): number {
  const i = chunk.indexOf(byte, from);
  return i < 0 ? chunk.length : i;
}

export class LineSplitter {
  readonly #sink: LineSink;
  #carry = new Uint8Array(256);
  #carryLength = 0;
  /** The previous chunk ended in CR: an LF starting the next chunk belongs to it. */
  #pendingLF = false;
  #first = true;

  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    let pos = 0;
    if (this.#pendingLF) {
      this.#pendingLF = false;
      if (chunk[0] === 0x0a) pos = 1;
    }
    // Next LF and next CR are looked up natively and reused until passed: LF-only text never
    // searches for CR again, CRLF text costs two searches per line.
    let lf = indexOrEnd(chunk, 0x0a, pos);
    let cr = indexOrEnd(chunk, 0x0d, pos);
    while (true) {
      if (lf < pos) lf = indexOrEnd(chunk, 0x0a, pos);
      if (cr < pos) cr = indexOrEnd(chunk, 0x0d, pos);
      const t = lf < cr ? lf : cr;
      if (t === n) break;
      if (this.#carryLength > 0) {
        this.#append(chunk, pos, t);
        const length = this.#carryLength;
        this.#carryLength = 0;
        this.#emit(this.#carry, 0, length);
      } else {
        this.#emit(chunk, pos, t);
      }
      if (t === cr) {
        if (t + 1 < n) {
          pos = chunk[t + 1] === 0x0a ? t + 2 : t + 1;
        } else {
          pos = n;
          this.#pendingLF = true;
        }
      } else {
        pos = t + 1;
      }
    }
    if (pos < n) this.#append(chunk, pos, n);
  }

  /** Delivers the last line when the text does not end with a line terminator. */
  finish(): void {
    this.#pendingLF = false;
    if (this.#carryLength > 0) {
      const length = this.#carryLength;
      this.#carryLength = 0;
      this.#emit(this.#carry, 0, length);
    }
  }

  #emit(buf: Uint8Array, start: number, end: number): void {
    if (this.#first) {
      this.#first = false;
      // A leading U+FEFF (spec §5) is dropped; it can only sit at the very start of line 1.
      if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) {
        start += 3;
      }
    }
    this.#sink.line(buf, start, end);
  }

  #append(chunk: Uint8Array, start: number, end: number): void {
    const need = this.#carryLength + (end - start);
    if (need > this.#carry.length) {
      let size = this.#carry.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#carry.subarray(0, this.#carryLength));
      this.#carry = grown;
    }
    this.#carry.set(chunk.subarray(start, end), this.#carryLength);
    this.#carryLength = need;
  }
}
