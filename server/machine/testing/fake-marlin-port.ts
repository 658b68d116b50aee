// Test support: the fake Marlin on a real serial port (the far end of a pty pair).
import { SerialPort } from 'serialport';
import { FakeMarlin, type FakeMarlinOptions } from './fake-marlin.ts';

export interface FakeMarlinOnPort {
  fake: FakeMarlin;
  port: SerialPort;
  close(): Promise<void>;
}

export async function attachFakeMarlin(
  path: string,
  options: Omit<FakeMarlinOptions, 'send'> = {},
): Promise<FakeMarlinOnPort> {
  const port = new SerialPort({ path, baudRate: 250000, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  const fake = new FakeMarlin({
    ...options,
    send: (text) => {
      if (port.isOpen) port.write(text);
    },
  });
  port.on('data', (chunk: Buffer) => fake.receive(chunk.toString('latin1')));
  // The host side going away (socat killed) closes this end too; nothing to do about it here.
  port.on('error', () => {});
  const close = async () => {
    fake.stop();
    if (!port.isOpen) return;
    await new Promise<void>((resolve) => port.close(() => resolve()));
  };
  return { fake, port, close };
}
