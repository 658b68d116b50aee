// How the host reaches a controller: a serial port in the app, an in-memory pair in tests.

export interface Transport {
  /** Writes one whole line in one write, so bytes of two lines never interleave. */
  write(data: string): void;
  /** Writes at once, ahead of anything still queued: the emergency stop's path. */
  writeUrgent(data: string): void;
  /** Text the controller sent, in arrival order (one receiver). */
  onData(listener: (text: string) => void): void;
  /** The port went away without being asked to close (unplugged, I/O error); one receiver. */
  onClose(listener: (reason: string) => void): void;
  /** Closes the port once everything already written has left; never reports through onClose. */
  close(): Promise<void>;
}

/** Opens a port; rejects with an Error whose message is the OS's reason. */
export type TransportOpener = (port: string, baudRate: number) => Promise<Transport>;

/** The controller's end of an in-memory link. */
export interface MemoryDevice {
  /** Every line the host wrote, in order, without the line feed. */
  readonly received: string[];
  /** Called for each complete line the host writes. */
  onLine(listener: (line: string) => void): void;
  /** Sends text to the host; it arrives in a later microtask, as bytes from a port would. */
  send(text: string): void;
  /** The port vanishes: the host sees onClose with this reason. */
  vanish(reason: string): void;
  readonly closed: boolean;
  /** How many writes took the urgent path. */
  readonly urgentWrites: number;
}

/** A connected pair: the host's Transport and the controller's MemoryDevice. */
export function createMemoryLink(): { transport: Transport; device: MemoryDevice } {
  let toHost: ((text: string) => void) | undefined;
  let closeListener: ((reason: string) => void) | undefined;
  const lineListeners: ((line: string) => void)[] = [];
  const received: string[] = [];
  let partial = '';
  let closed = false;
  let urgentWrites = 0;

  const deliverToDevice = (data: string) => {
    if (closed) return;
    partial += data;
    let at = partial.indexOf('\n');
    while (at !== -1) {
      const line = partial.slice(0, at);
      partial = partial.slice(at + 1);
      received.push(line);
      queueMicrotask(() => {
        for (const listener of lineListeners) listener(line);
      });
      at = partial.indexOf('\n');
    }
  };

  const transport: Transport = {
    write(data) {
      if (closed) throw new Error('port is closed');
      deliverToDevice(data);
    },
    writeUrgent(data) {
      if (closed) throw new Error('port is closed');
      urgentWrites++;
      deliverToDevice(data);
    },
    onData(listener) {
      toHost = listener;
    },
    onClose(listener) {
      closeListener = listener;
    },
    async close() {
      closed = true;
    },
  };

  const device: MemoryDevice = {
    received,
    onLine(listener) {
      lineListeners.push(listener);
    },
    send(text) {
      queueMicrotask(() => {
        if (!closed) toHost?.(text);
      });
    },
    vanish(reason) {
      if (closed) return;
      closed = true;
      queueMicrotask(() => closeListener?.(reason));
    },
    get closed() {
      return closed;
    },
    get urgentWrites() {
      return urgentWrites;
    },
  };
  return { transport, device };
}
