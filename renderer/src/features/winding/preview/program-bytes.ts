// A program's bytes kept in one growing buffer, and where each command line lies in it. The
// worker holds the only copy: lines are looked up here, and the page never holds the text.

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const SEMICOLON = 0x3b;

export class ProgramBytes {
  #buffer = new Uint8Array(1 << 16);
  #length = 0;
  #index: { starts: Uint32Array; ends: Uint32Array; sourceLines: Uint32Array; count: number } | null = null;

  get byteLength(): number {
    return this.#length;
  }

  /** Copies `chunk` in (the planner reuses its chunk buffer). */
  append(chunk: Uint8Array): void {
    const need = this.#length + chunk.length;
    if (need > this.#buffer.length) {
      let size = this.#buffer.length * 2;
      while (size < need) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length = need;
    this.#index = null;
  }

  bytes(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }

  /**
   * The `command`-th command line (1-based; lines that are not blank and not only a comment, the
   * numbering of the preview and of streaming progress), or null when there is no such line.
   */
  commandLine(command: number): { sourceLine: number; text: string } | null {
    const index = this.#commandIndex();
    if (!Number.isInteger(command) || command < 1 || command > index.count) return null;
    const start = index.starts[command - 1] as number;
    const end = index.ends[command - 1] as number;
    return {
      sourceLine: index.sourceLines[command - 1] as number,
      text: new TextDecoder().decode(this.#buffer.subarray(start, end)),
    };
  }

  get commandCount(): number {
    return this.#commandIndex().count;
  }

  #commandIndex() {
    if (this.#index !== null) return this.#index;
    const buf = this.#buffer;
    const n = this.#length;
    let capacity = 1024;
    let starts = new Uint32Array(capacity);
    let ends = new Uint32Array(capacity);
    let sourceLines = new Uint32Array(capacity);
    let count = 0;
    let line = 1;
    let pos = 0;
    while (pos < n || (pos === n && n === 0)) {
      let end = pos;
      while (end < n && buf[end] !== LF && buf[end] !== CR) end++;
      let first = pos;
      while (first < end && (buf[first] === SPACE || buf[first] === TAB)) first++;
      if (first < end && buf[first] !== SEMICOLON) {
        if (count === capacity) {
          capacity *= 2;
          starts = grow(starts, capacity);
          ends = grow(ends, capacity);
          sourceLines = grow(sourceLines, capacity);
        }
        starts[count] = pos;
        ends[count] = end;
        sourceLines[count] = line;
        count++;
      }
      if (end >= n) break;
      pos = buf[end] === CR && buf[end + 1] === LF ? end + 2 : end + 1;
      line++;
    }
    this.#index = { starts, ends, sourceLines, count };
    return this.#index;
  }
}

function grow(array: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const grown = new Uint32Array(size);
  grown.set(array);
  return grown;
}
