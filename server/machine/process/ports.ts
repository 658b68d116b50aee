// Which serial ports the operator can pick. `SerialPort.list()` needs udev on Linux (it runs
// `udevadm`); where that fails the device files are still worth showing, with a warning.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SerialPortInfo, SerialPortList } from '../../../engine/machine/contract.ts';

export type { SerialPortInfo, SerialPortList } from '../../../engine/machine/contract.ts';

export interface PortListing {
  /** The detailed OS listing. */
  list?: () => Promise<SerialPortInfo[]>;
  /** The fallback: device files that look like serial adapters. */
  scan?: () => Promise<string[]>;
  platform?: NodeJS.Platform;
}

const ADAPTER_NAMES = /^(ttyUSB|ttyACM|ttyAMA|ttyTHS|rfcomm|cu\.|tty\.usb)/;

async function scanDevices(): Promise<string[]> {
  const found: string[] = [];
  try {
    for (const name of await readdir('/dev')) if (ADAPTER_NAMES.test(name)) found.push(join('/dev', name));
  } catch {
    // No /dev to read: nothing to add.
  }
  try {
    for (const name of await readdir('/dev/serial/by-id')) found.push(join('/dev/serial/by-id', name));
  } catch {
    // Only present when udev has named adapters.
  }
  return found.sort();
}

async function osList(): Promise<SerialPortInfo[]> {
  // Loaded when first asked (as serial-transport.ts does): not part of the machine process's start.
  const { SerialPort } = await import('serialport');
  return (await SerialPort.list()).map((port) => ({
    path: port.path,
    ...(port.manufacturer ? { manufacturer: port.manufacturer } : {}),
    ...(port.serialNumber ? { serialNumber: port.serialNumber } : {}),
    ...(port.vendorId ? { vendorId: port.vendorId } : {}),
    ...(port.productId ? { productId: port.productId } : {}),
  }));
}

/** Never rejects: a failing OS listing falls back to device files and says so. */
export async function listSerialPorts({
  list = osList,
  scan = scanDevices,
  platform = process.platform,
}: PortListing = {}): Promise<SerialPortList> {
  try {
    return { ports: await list() };
  } catch (error) {
    const reason = (error as Error).message;
    if (platform === 'win32') return { ports: [], warning: `Could not list serial ports: ${reason}` };
    const ports = (await scan()).map((path) => ({ path }));
    return {
      ports,
      warning: `Could not read serial port details (${reason}); showing device files only`,
    };
  }
}
