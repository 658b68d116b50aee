// The host's Transport on a real serial port (`serialport`). Reads and writes go straight to the
// file descriptor where there is one: a line leaves in one write(2) without waiting for the libuv
// thread pool, the emergency stop never queues behind anything, and an `ok` is read on the event
// loop the moment the descriptor is readable.
import { readSync, writeSync } from 'node:fs';
import type { SerialPort } from 'serialport';
import type { Transport, TransportOpener } from '../../../engine/machine/transport.ts';
import { AGAIN, WriteQueue } from './write-queue.ts';

const CLOSE_FLUSH_MS = 500;

/** Opens `path` at `baudRate`, 8N1, no flow control. Rejects with the OS's reason. */
export const openSerialPort: TransportOpener = async (path, baudRate) => {
  // Loaded on the first open, not at start: the serial driver is a good part of the machine
  // process's start-up, and many runs never open a port.
  const { SerialPort } = await import('serialport');
  let port: SerialPort;
  try {
    port = new SerialPort({
      path,
      baudRate,
      dataBits: 8,
      stopBits: 1,
      parity: 'none',
      rtscts: false,
      xon: false,
      xoff: false,
      xany: false,
      autoOpen: false,
    });
  } catch (error) {
    throw new Error((error as Error).message);
  }
  await new Promise<void>((resolve, reject) =>
    port.open((error) => (error ? reject(new Error(openFailure(error, path))) : resolve())),
  );
  return new SerialTransport(port);
};

/** bindings-cpp says `Error: No such file or directory, cannot open /dev/x`; keep the reason. */
function openFailure(error: Error, path: string): string {
  const message = error.message.replace(/^Error:\s*/, '');
  const suffix = `, cannot open ${path}`;
  return message.endsWith(suffix) ? message.slice(0, -suffix.length) : message;
}

type PollListener = (error: (Error & { canceled?: boolean }) | null) => void;

interface Binding {
  fd?: number | null;
  write(buffer: Buffer): Promise<void>;
  /** bindings-cpp's poller on POSIX systems. */
  poller?: {
    once(event: 'disconnect' | 'readable', listener: PollListener): unknown;
  };
}

/** What a read of a tty whose device went away says (a pty whose peer closed: EIO). */
const READ_GONE = new Set(['EIO', 'ENXIO', 'EBADF', 'ENODEV']);
const DISCONNECTED = 'the device was disconnected';
const READ_BUFFER_BYTES = 64 * 1024;

class SerialTransport implements Transport {
  readonly #port: SerialPort;
  readonly #queue: WriteQueue;
  #dataListener: ((text: string) => void) | undefined;
  #closeListener: ((reason: string) => void) | undefined;
  #closing = false;
  #gone = false;

  constructor(port: SerialPort) {
    this.#port = port;
    this.#queue = new WriteQueue({
      writeNow: (bytes) => {
        const fd = this.#binding?.fd;
        if (typeof fd !== 'number') throw new Error('the port is not open');
        return writeSync(fd, bytes);
      },
      writeAll: async (bytes) => {
        const binding = this.#binding;
        if (!binding || this.#gone) throw new Error('the port is not open');
        await binding.write(bytes);
      },
      lost: (reason) => this.#lost(reason),
    });
    // A hung-up tty (adapter unplugged, pty peer gone) reads as end-of-file, and bindings-cpp retries
    // such reads without end: if the hang-up lands while a read is under way, the stream never
    // reports it. Watching for the hang-up on the descriptor catches it whatever the reader does.
    // Armed before the first read starts, so the reader's own polling is never displaced.
    this.#binding?.poller?.once('disconnect', (error) => {
      if (!error?.canceled) this.#lost(DISCONNECTED);
    });
    const fd = this.#binding?.fd;
    const poller = this.#binding?.poller;
    if (typeof fd === 'number' && poller) this.#readWhenReadable(fd, poller);
    else port.on('data', (chunk: Buffer) => this.#dataListener?.(chunk.toString('latin1')));
    port.on('close', (error?: Error & { disconnected?: boolean }) => {
      const reason = error?.disconnected ? 'the device was disconnected' : (error?.message ?? 'closed');
      this.#lost(reason);
    });
    port.on('error', (error: Error) => this.#lost(error.message));
  }

  write(data: string): void {
    this.#check();
    const bytes = Buffer.from(data, 'latin1');
    if (typeof this.#binding?.fd !== 'number') this.#port.write(bytes);
    else this.#queue.write(bytes);
  }

  writeUrgent(data: string): void {
    this.#check();
    if (typeof this.#binding?.fd !== 'number') {
      // No descriptor (Windows): the binding's own write, outside the stream's queue.
      void this.#binding
        ?.write(Buffer.from(data, 'latin1'))
        .catch((error: Error) => this.#lost(error.message));
      return;
    }
    this.#queue.writeUrgent(data);
  }

  onData(listener: (text: string) => void): void {
    this.#dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.#closeListener = listener;
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    if (this.#queue.pending && !this.#gone) {
      await Promise.race([
        this.#queue.settled(),
        new Promise((resolve) => setTimeout(resolve, CLOSE_FLUSH_MS)),
      ]);
    }
    if (!this.#port.isOpen) return;
    await new Promise<void>((resolve) => this.#port.close(() => resolve()));
  }

  /**
   * Reads what has arrived each time the descriptor is readable, with read(2) on the event loop
   * (the descriptor is non-blocking). serialport's own reader runs every read on the libuv thread
   * pool — two hand-offs between threads for each `ok`, and a second read that only finds EAGAIN —
   * which made the thread pool's wake-ups most of a line's round trip once the CPU was busy. Never
   * both readers at once: serialport's starts only when something listens for `data`.
   */
  #readWhenReadable(fd: number, poller: NonNullable<Binding['poller']>) {
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const onReadable: PollListener = (error) => {
      if (this.#gone) return;
      if (error) {
        // Cancelled: the port is closing (its own close event says why).
        if (!error.canceled) this.#lost(error.message);
        return;
      }
      let bytes: number;
      try {
        bytes = readSync(fd, buffer, 0, buffer.length, null);
      } catch (failure) {
        const code = (failure as NodeJS.ErrnoException).code ?? '';
        if (!AGAIN.has(code)) this.#lost(READ_GONE.has(code) ? DISCONNECTED : (failure as Error).message);
        else if (!this.#closing && this.#binding?.fd === fd) poller.once('readable', onReadable);
        return;
      }
      // Readable with nothing to read is a hang-up: waiting again would only spin.
      if (bytes === 0) return this.#lost(DISCONNECTED);
      this.#dataListener?.(buffer.toString('latin1', 0, bytes));
      // The listener may have closed the port, which destroys the poller there and then: polling a
      // destroyed poller crashes the process (bindings-cpp frees its native handle).
      if (!this.#gone && !this.#closing && this.#binding?.fd === fd) poller.once('readable', onReadable);
    };
    poller.once('readable', onReadable);
  }

  get #binding(): Binding | undefined {
    return this.#port.port as unknown as Binding | undefined;
  }

  #check() {
    if (this.#gone || !this.#port.isOpen) throw new Error('the port is not open');
  }

  #lost(reason: string) {
    if (this.#gone) return;
    this.#gone = true;
    if (!this.#closing) this.#closeListener?.(reason);
  }
}
