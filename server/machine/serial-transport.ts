// The host's Transport on a real serial port (`serialport`). Writes go straight to the file
// descriptor where there is one: a line leaves in one write(2) without waiting for the libuv
// thread pool, and the emergency stop never queues behind anything.
import { writeSync } from 'node:fs';
import { SerialPort } from 'serialport';
import type { Transport, TransportOpener } from '../../engine/machine/transport.ts';
import { WriteQueue } from './write-queue.ts';

const CLOSE_FLUSH_MS = 500;

/** Opens `path` at `baudRate`, 8N1, no flow control. Rejects with the OS's reason. */
export const openSerialPort: TransportOpener = async (path, baudRate) => {
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

interface Binding {
  fd?: number | null;
  write(buffer: Buffer): Promise<void>;
  /** bindings-cpp's poller on POSIX systems. */
  poller?: {
    once(event: 'disconnect', listener: (error: (Error & { canceled?: boolean }) | null) => void): unknown;
  };
}

class SerialTransport implements Transport {
  private readonly port: SerialPort;
  private readonly queue: WriteQueue;
  private dataListener: ((text: string) => void) | undefined;
  private closeListener: ((reason: string) => void) | undefined;
  private closing = false;
  private gone = false;

  constructor(port: SerialPort) {
    this.port = port;
    this.queue = new WriteQueue({
      writeNow: (bytes) => {
        const fd = this.binding?.fd;
        if (typeof fd !== 'number') throw new Error('the port is not open');
        return writeSync(fd, bytes);
      },
      writeAll: async (bytes) => {
        const binding = this.binding;
        if (!binding || this.gone) throw new Error('the port is not open');
        await binding.write(bytes);
      },
      lost: (reason) => this.lost(reason),
    });
    // A hung-up tty (adapter unplugged, pty peer gone) reads as end-of-file, and bindings-cpp retries
    // such reads without end: if the hang-up lands while a read is under way, the stream never
    // reports it. Watching for the hang-up on the descriptor catches it whatever the reader does.
    // Armed before the first read starts, so the reader's own polling is never displaced.
    this.binding?.poller?.once('disconnect', (error) => {
      if (!error?.canceled) this.lost('the device was disconnected');
    });
    port.on('data', (chunk: Buffer) => this.dataListener?.(chunk.toString('latin1')));
    port.on('close', (error?: Error & { disconnected?: boolean }) => {
      const reason = error?.disconnected ? 'the device was disconnected' : (error?.message ?? 'closed');
      this.lost(reason);
    });
    port.on('error', (error: Error) => this.lost(error.message));
  }

  write(data: string): void {
    this.check();
    const bytes = Buffer.from(data, 'latin1');
    if (typeof this.binding?.fd !== 'number') this.port.write(bytes);
    else this.queue.write(bytes);
  }

  writeUrgent(data: string): void {
    this.check();
    if (typeof this.binding?.fd !== 'number') {
      // No descriptor (Windows): the binding's own write, outside the stream's queue.
      void this.binding?.write(Buffer.from(data, 'latin1')).catch((error: Error) => this.lost(error.message));
      return;
    }
    this.queue.writeUrgent(data);
  }

  onData(listener: (text: string) => void): void {
    this.dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListener = listener;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.queue.pending && !this.gone) {
      await Promise.race([
        this.queue.settled(),
        new Promise((resolve) => setTimeout(resolve, CLOSE_FLUSH_MS)),
      ]);
    }
    if (!this.port.isOpen) return;
    await new Promise<void>((resolve) => this.port.close(() => resolve()));
  }

  private get binding(): Binding | undefined {
    return this.port.port as unknown as Binding | undefined;
  }

  private check() {
    if (this.gone || !this.port.isOpen) throw new Error('the port is not open');
  }

  private lost(reason: string) {
    if (this.gone) return;
    this.gone = true;
    if (!this.closing) this.closeListener?.(reason);
  }
}
