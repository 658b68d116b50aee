// Test support: the fake Marlin on a real serial port (the far end of a pty pair). It reads and
// writes through the host's own serial transport, straight to the descriptor: a controller answers
// from its own serial interrupt, not after a hand-off to a thread pool, and a slower far end would
// make every round trip of a test or benchmark pay for the fixture.
import type { Transport } from '../../../engine/machine/transport.ts';
import { openSerialPort } from '../process/serial-transport.ts';
import { FakeMarlin, type FakeMarlinOptions } from './fake-marlin.ts';

export interface FakeMarlinOnPort {
  fake: FakeMarlin;
  port: Transport;
  close(): Promise<void>;
}

export async function attachFakeMarlin(
  path: string,
  options: Omit<FakeMarlinOptions, 'send'> = {},
): Promise<FakeMarlinOnPort> {
  const port = await openSerialPort(path, 250000);
  const fake = new FakeMarlin({
    ...options,
    send: (text) => {
      try {
        port.write(text);
      } catch {
        // The port is closed, or the host side went away (socat killed): nothing more to say.
      }
    },
  });
  port.onData((text) => fake.receive(text));
  const close = async () => {
    fake.stop();
    await port.close();
  };
  return { fake, port, close };
}
