// The serial transport's write path, apart from the port so it can be tested with a write that
// takes fewer bytes than asked. A line goes out in one write(2) when the OS takes it whole (the
// usual case: a line is far smaller than the output buffer); what the OS does not take waits in
// order, and later lines wait behind it. The emergency stop never waits behind anything.

/** What a non-blocking read or write says when the OS has nothing for it yet: try again later. */
export const AGAIN = new Set(['EAGAIN', 'EWOULDBLOCK', 'EINTR']);

export interface WriteQueueIo {
  /** Writes what the OS takes now and returns how many bytes that was; throws on I/O errors. */
  writeNow(bytes: Buffer): number;
  /** Writes all of `bytes`, waiting for the OS as long as it needs. */
  writeAll(bytes: Buffer): Promise<void>;
  /** The port failed while writing. */
  lost(reason: string): void;
}

export class WriteQueue {
  readonly #io: WriteQueueIo;
  /** Bytes the OS would not take yet, in wire order; the first may be the rest of a line. */
  #backlog: Buffer[] = [];
  #draining: Promise<void> | undefined;

  constructor(io: WriteQueueIo) {
    this.#io = io;
  }

  /** True while some bytes already given to `write` have not reached the OS. */
  get pending(): boolean {
    return this.#backlog.length > 0 || this.#draining !== undefined;
  }

  /** Resolves once the backlog is written (or the port failed). */
  settled(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  /** One whole line, after anything still queued. */
  write(bytes: Buffer): void {
    if (this.pending) {
      this.#backlog.push(bytes);
      return;
    }
    this.#writeFirst(bytes);
  }

  /**
   * At once, ahead of everything queued, which is dropped: after an emergency stop nothing more is
   * sent. A line the OS holds only part of would swallow the command, so that line is ended first
   * (the controller drops it as a line without a checksum).
   */
  writeUrgent(text: string): void {
    const bytes = Buffer.from(this.pending ? `\n${text}` : text, 'latin1');
    this.#backlog = [];
    this.#writeFirst(bytes);
  }

  #writeFirst(bytes: Buffer) {
    let written = 0;
    try {
      written = this.#io.writeNow(bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!AGAIN.has(code)) {
        this.#io.lost((error as Error).message);
        throw error;
      }
    }
    if (written >= bytes.length) return;
    this.#backlog.unshift(bytes.subarray(written));
    this.#drain();
  }

  #drain() {
    if (this.#draining) return;
    this.#draining = (async () => {
      try {
        for (let next = this.#backlog.shift(); next !== undefined; next = this.#backlog.shift()) {
          await this.#io.writeAll(next);
        }
      } catch (error) {
        this.#backlog = [];
        this.#io.lost((error as Error).message);
      } finally {
        this.#draining = undefined;
      }
    })();
  }
}
