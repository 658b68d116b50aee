// The host's Transport on a real serial port (`serialport`). Writes go straight to the file
// descriptor where there is one: a line leaves in one write(2) without waiting for the libuv
// thread pool, and the emergency stop never queues behind anything.
import { writeSync } from 'node:fs';
import { SerialPort } from 'serialport';
import type { Transport, TransportOpener } from '../../engine/machine/transport.ts';

const AGAIN = new Set(['EAGAIN', 'EWOULDBLOCK', 'EINTR']);
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
  fd?: number;
  write(buffer: Buffer): Promise<void>;
}

class SerialTransport implements Transport {
  private readonly port: SerialPort;
  private dataListener: ((text: string) => void) | undefined;
  private closeListener: ((reason: string) => void) | undefined;
  private closing = false;
  private gone = false;
  /** Bytes the OS would not take yet (a full output buffer); written in order before anything new. */
  private backlog: Buffer[] = [];
  private draining: Promise<void> | undefined;

  constructor(port: SerialPort) {
    this.port = port;
    port.on('data', (chunk: Buffer) => this.dataListener?.(chunk.toString('latin1')));
    port.on('close', (error?: Error & { disconnected?: boolean }) => {
      const reason = error?.disconnected ? 'the device was disconnected' : (error?.message ?? 'closed');
      this.lost(reason);
    });
    port.on('error', (error: Error) => this.lost(error.message));
  }

  write(data: string): void {
    this.push(Buffer.from(data, 'latin1'), false);
  }

  writeUrgent(data: string): void {
    // A half-written line in the backlog would swallow the command: end that line first.
    const bytes = Buffer.from(this.backlog.length > 0 ? `\n${data}` : data, 'latin1');
    this.push(bytes, true);
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
    if (this.draining) {
      await Promise.race([this.draining, new Promise((resolve) => setTimeout(resolve, CLOSE_FLUSH_MS))]);
    }
    if (!this.port.isOpen) return;
    await new Promise<void>((resolve) => this.port.close(() => resolve()));
  }

  private get binding(): Binding | undefined {
    return this.port.port as unknown as Binding | undefined;
  }

  private push(bytes: Buffer, urgent: boolean) {
    if (this.gone || !this.port.isOpen) throw new Error('the port is not open');
    const fd = this.binding?.fd;
    if (typeof fd !== 'number') {
      // No descriptor (Windows): the binding's own write, outside the stream's queue when urgent.
      if (urgent) void this.binding?.write(bytes).catch((error: Error) => this.lost(error.message));
      else this.port.write(bytes);
      return;
    }
    if (this.backlog.length > 0 && !urgent) {
      this.backlog.push(bytes);
      return;
    }
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!AGAIN.has(code)) {
        this.lost((error as Error).message);
        throw error;
      }
    }
    if (written < bytes.length) {
      const rest = bytes.subarray(written);
      if (urgent) this.backlog.unshift(rest);
      else this.backlog.push(rest);
      this.drain();
    }
  }

  private drain() {
    if (this.draining) return;
    this.draining = (async () => {
      while (this.backlog.length > 0 && !this.gone) {
        const next = this.backlog.shift() as Buffer;
        try {
          await this.binding?.write(next);
        } catch (error) {
          this.lost((error as Error).message);
        }
      }
      this.draining = undefined;
    })();
  }

  private lost(reason: string) {
    if (this.gone) return;
    this.gone = true;
    if (!this.closing) this.closeListener?.(reason);
  }
}
