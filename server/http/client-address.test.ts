// §5.6 client addresses: forwarded addresses only from trusted proxies, for the throttles and for
// the LAN door's loopback-only routes, the latter over real HTTP on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { ClientAddresses, isLoopbackIp, LOCAL_ONLY_DETAIL, normaliseIp } from './client-address.ts';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

describe('client addresses (§5.6)', () => {
  it.each([
    [' "10.0.0.1" ', '10.0.0.1'],
    ['10.0.0.1:5555', '10.0.0.1'],
    ['[2001:DB8::1]:443', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::ffff:192.168.1.2', '192.168.1.2'],
    ['not-an-ip', null],
    ['', null],
  ])('normalises %j to %j', (raw, expected) => {
    expect(normaliseIp(raw)).toBe(expected);
  });

  it('knows loopback addresses', () => {
    expect([isLoopbackIp('127.3.4.5'), isLoopbackIp('::1'), isLoopbackIp('::ffff:127.0.0.1')]).toEqual([
      true,
      true,
      true,
    ]);
    expect([isLoopbackIp('10.0.0.1'), isLoopbackIp(undefined)]).toEqual([false, false]);
  });

  it('takes the N-th X-Forwarded-For entry from the right from a trusted proxy, else the socket', () => {
    const ip = (hops: number, socket: string, xff: string | string[] | undefined) =>
      new ClientAddresses({ hops, trustedProxies: LOOPBACK }).resolve(socket, xff).ip;
    expect(ip(0, '::ffff:127.0.0.1', '1.1.1.1, 2.2.2.2')).toBe('127.0.0.1');
    expect(ip(1, '127.0.0.1', ['9.9.9.9, 1.1.1.1', '2.2.2.2'])).toBe('2.2.2.2');
    expect(ip(2, '127.0.0.1', '9.9.9.9, 1.1.1.1, 2.2.2.2')).toBe('1.1.1.1');
    expect(ip(2, '127.0.0.1', '2.2.2.2')).toBe('127.0.0.1');
    expect(ip(2, '127.0.0.1', 'garbage, 2.2.2.2')).toBe('127.0.0.1');
    expect(ip(1, '127.0.0.1', undefined)).toBe('127.0.0.1');
    // A peer that is not a trusted proxy picks no address of its own choosing.
    expect(ip(1, '192.168.1.20', '10.0.0.9')).toBe('192.168.1.20');
  });

  it('trusts the proxies TRUSTED_PROXIES names, by address or CIDR range', () => {
    const addresses = new ClientAddresses({
      hops: 1,
      trustedProxies: ['10.1.0.0/16', '192.168.1.5', 'fd00::/8'],
    });
    expect(addresses.resolve('10.1.200.3', '172.16.0.9')).toEqual({
      ip: '172.16.0.9',
      viaProxy: true,
      forwarded: true,
    });
    expect(addresses.resolve('::ffff:192.168.1.5', '172.16.0.9').ip).toBe('172.16.0.9');
    expect(addresses.resolve('fd12::7', '172.16.0.9').ip).toBe('172.16.0.9');
    expect(addresses.resolve('192.168.1.6', '172.16.0.9')).toEqual({
      ip: '192.168.1.6',
      viaProxy: false,
      forwarded: false,
    });
    // Loopback is not trusted once TRUSTED_PROXIES names others.
    expect(addresses.resolve('127.0.0.1', '172.16.0.9').ip).toBe('127.0.0.1');
  });

  it('logs the "does not match" warning at most once a minute', () => {
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) };
    let now = 1_000_000;
    const addresses = new ClientAddresses({ hops: 2, trustedProxies: LOOPBACK }, logger as never, () => now);
    for (let i = 0; i < 500; i += 1) addresses.resolve('127.0.0.1', '10.0.0.1');
    expect(warnings).toHaveLength(1);
    now += 59_999;
    addresses.resolve('127.0.0.1', 'garbage, 10.0.0.1');
    expect(warnings).toHaveLength(1);
    now += 1;
    addresses.resolve('127.0.0.1', '');
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toEqual([
      { forwardedFor: '', hops: 2, suppressed: 500 },
      'X-Forwarded-For does not match API_TRUST_PROXY_HOPS; using the socket address',
    ]);
  });
});

describe('loopback-only routes behind a proxy', () => {
  let ws: TestWorkstation | undefined;
  afterEach(async () => {
    await ws?.dispose();
    ws = undefined;
  });

  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  it('judge the forwarded client of a trusted proxy, and refuse a proxy request that names none', async () => {
    // The test's own loopback connection plays the reverse proxy on the workstation (the default
    // TRUSTED_PROXIES), forwarding for a LAN client.
    ws = await startTestWorkstation({ API_TRUST_PROXY_HOPS: '1' });
    const lan = ws.urls.lan;
    const variants: Record<string, string>[] = [
      { 'x-forwarded-for': '192.168.1.20' },
      {},
      { 'x-forwarded-for': 'nonsense' },
    ];
    for (const headers of variants) {
      const stop = await post(`${lan}/api/doors/winding/stop`, headers);
      expect(stop.status, JSON.stringify(headers)).toBe(403);
      expect(await stop.json()).toEqual({ detail: LOCAL_ONLY_DETAIL });
      // Machine status is readable from the LAN, but only with a session: judged as a LAN client.
      const status = await fetch(`${lan}/api/machine/status`, { headers });
      expect(status.status, JSON.stringify(headers)).toBe(401);
      const tasks = await fetch(`${lan}/api/tasks/today`, { headers });
      expect(tasks.status, JSON.stringify(headers)).toBe(403);
    }
    // A client forging a loopback entry further left gains nothing: the proxy's own entry counts.
    const forged = await post(`${lan}/api/doors/winding/stop`, {
      'x-forwarded-for': '127.0.0.1, 192.168.1.20',
    });
    expect(forged.status).toBe(403);
    expect(ws.doors.winding.running).toBe(true);

    // A browser on the workstation itself, through the proxy.
    const local = await post(`${lan}/api/doors/winding/stop`, { 'x-forwarded-for': '127.0.0.1' });
    expect(local.status).toBe(200);
    expect(ws.doors.winding.running).toBe(false);
    expect((await fetch(`${lan}/api/machine/status`, { headers: { 'x-forwarded-for': '::1' } })).status).toBe(
      200,
    );
  });

  it('ignore X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    ws = await startTestWorkstation({ API_TRUST_PROXY_HOPS: '1', TRUSTED_PROXIES: '192.0.2.10' });
    const status = await fetch(`${ws.urls.lan}/api/machine/status`, {
      headers: { 'x-forwarded-for': '192.168.1.20' },
    });
    expect(status.status).toBe(200);
  });
});
