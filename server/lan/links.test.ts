// Where handed-out links point: the configured public URL, else the LAN door's own address as a
// colleague reaches it, never the workstation's loopback name.
import type { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { LINKS_ROUTE, linkBase } from './links.ts';

type Interfaces = ReturnType<typeof networkInterfaces>;

function nic(address: string, family: 'IPv4' | 'IPv6', internal: boolean) {
  return { address, family, internal, netmask: '', mac: '', cidr: null } as NonNullable<
    Interfaces[string]
  >[number];
}

const MACHINE: Interfaces = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  eth0: [nic('fe80::1', 'IPv6', false), nic('192.168.4.20', 'IPv4', false)],
  wlan0: [nic('10.1.1.7', 'IPv4', false)],
};

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

describe('linkBase', () => {
  it('takes the configured public URL first', () => {
    expect(
      linkBase({ publicUrl: 'https://winder.shop.test', host: '0.0.0.0', interfaces: () => MACHINE }, 4001),
    ).toBe('https://winder.shop.test');
  });

  it("takes a wildcard door's first non-loopback IPv4 address, with the door's port", () => {
    expect(linkBase({ publicUrl: null, host: '0.0.0.0', interfaces: () => MACHINE }, 4001)).toBe(
      'http://192.168.4.20:4001',
    );
    expect(linkBase({ publicUrl: null, host: '::', interfaces: () => MACHINE }, 4100)).toBe(
      'http://192.168.4.20:4100',
    );
  });

  it('takes the address a door listens on when it is not a wildcard', () => {
    expect(linkBase({ publicUrl: null, host: '10.1.1.7', interfaces: () => MACHINE }, 4001)).toBe(
      'http://10.1.1.7:4001',
    );
    expect(linkBase({ publicUrl: null, host: 'fd00::7', interfaces: () => MACHINE }, 4001)).toBe(
      'http://[fd00::7]:4001',
    );
  });

  it("gives none (the page's origin) for a loopback door or a machine with no LAN address", () => {
    expect(linkBase({ publicUrl: null, host: '127.0.0.1', interfaces: () => MACHINE }, 4001)).toBeNull();
    expect(
      linkBase({ publicUrl: null, host: '0.0.0.0', interfaces: () => ({ lo: MACHINE.lo }) }, 4001),
    ).toBeNull();
  });
});

describe(`GET ${LINKS_ROUTE}`, () => {
  it('answers the configured public URL', async () => {
    ws = await startTestWorkstation({ PUBLIC_URL: 'http://winder.shop.test:4001' });
    const response = await fetch(`${ws.urls.lan}${LINKS_ROUTE}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ base: 'http://winder.shop.test:4001' });
  });

  it('answers null on a loopback-only workstation, so the page keeps its own origin', async () => {
    ws = await startTestWorkstation();
    expect(await (await fetch(`${ws.urls.lan}${LINKS_ROUTE}`)).json()).toEqual({ base: null });
  });
});
