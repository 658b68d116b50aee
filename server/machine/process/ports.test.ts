import { describe, expect, it } from 'vitest';
import { listSerialPorts } from './ports.ts';

describe('serial port listing', () => {
  it('returns the OS listing when it works', async () => {
    const list = await listSerialPorts({
      list: async () => [{ path: '/dev/ttyACM0', manufacturer: 'Arduino' }],
      scan: async () => ['/dev/ttyUSB9'],
    });
    expect(list).toEqual({ ports: [{ path: '/dev/ttyACM0', manufacturer: 'Arduino' }] });
  });

  it('falls back to device files with a warning when the listing fails (udevadm missing)', async () => {
    const list = await listSerialPorts({
      list: async () => {
        throw new Error('spawn udevadm ENOENT');
      },
      scan: async () => ['/dev/ttyACM0', '/dev/ttyUSB0'],
      platform: 'linux',
    });
    expect(list).toEqual({
      ports: [{ path: '/dev/ttyACM0' }, { path: '/dev/ttyUSB0' }],
      warning: 'Could not read serial port details (spawn udevadm ENOENT); showing device files only',
    });
    const windows = await listSerialPorts({
      list: async () => {
        throw new Error('access denied');
      },
      platform: 'win32',
    });
    expect(windows).toEqual({ ports: [], warning: 'Could not list serial ports: access denied' });
  });

  it('never rejects on this machine', async () => {
    const list = await listSerialPorts();
    expect(Array.isArray(list.ports)).toBe(true);
  });
});
