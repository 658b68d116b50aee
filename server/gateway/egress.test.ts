// The egress policy of gateway spec §7 as pure decisions, and resolution pinned to checked addresses.
import { describe, expect, it } from 'vitest';
import {
  classify,
  EgressConfigError,
  type EgressError,
  egressPolicy,
  refusal,
  resolveUpstream,
} from './egress.ts';

const NO_SELF = new Set<string>();

describe('address classes (§7.1)', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['192.0.2.7', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.20', 'private'],
    ['fd12::1', 'private'],
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, cls) => {
    expect(classify(address, NO_SELF)).toBe(cls);
  });

  it('an address of this workstation is self', () => {
    expect(classify('192.168.1.20', new Set(['192.168.1.20']))).toBe('self');
  });
});

describe('policy (§7.2)', () => {
  it('allows the shop LAN and the internet by default, refuses the rest', () => {
    const policy = egressPolicy();
    expect(refusal(policy, '192.168.1.20', 1883, NO_SELF)).toBeNull();
    expect(refusal(policy, '8.8.8.8', 443, NO_SELF)).toBeNull();
    expect(refusal(policy, '127.0.0.1', 1883, NO_SELF)).toBe('loopback');
    expect(refusal(policy, '169.254.169.254', 80, NO_SELF)).toBe('metadata');
    expect(refusal(policy, '169.254.1.1', 80, NO_SELF)).toBe('link-local');
  });

  it('ALLOW entries open classes, optionally per port; metadata only by exact address', () => {
    const policy = egressPolicy('loopback:1883,link-local,169.254.169.254:80');
    expect(refusal(policy, '127.0.0.1', 1883, NO_SELF)).toBeNull();
    expect(refusal(policy, '127.0.0.1', 8000, NO_SELF)).toBe('loopback');
    expect(refusal(policy, '169.254.1.1', 8080, NO_SELF)).toBeNull();
    expect(refusal(policy, '169.254.169.254', 80, NO_SELF)).toBeNull();
    expect(refusal(egressPolicy('169.254.0.0/16'), '169.254.169.254', 80, NO_SELF)).toBe('metadata');
  });

  it('DENY wins over everything; unspecified and multicast are never allowed', () => {
    const policy = egressPolicy('0.0.0.0/0', 'private,[fd00::/8]:443');
    expect(refusal(policy, '10.0.0.1', 80, NO_SELF)).toBe('denied');
    expect(refusal(policy, 'fd12::1', 443, NO_SELF)).toBe('denied');
    expect(refusal(policy, '0.0.0.0', 80, NO_SELF)).toBe('unspecified');
    expect(refusal(policy, '224.0.0.1', 80, NO_SELF)).toBe('multicast');
  });

  it('an invalid entry refuses start with the variable and the entry', () => {
    expect(() => egressPolicy('private')).toThrow(
      new EgressConfigError('GATEWAY_EGRESS_ALLOW: invalid entry private'),
    );
    expect(() => egressPolicy('', 'loopback')).toThrow('GATEWAY_EGRESS_DENY: invalid entry loopback');
    expect(() => egressPolicy('10.0.0.0/33')).toThrow('GATEWAY_EGRESS_ALLOW: invalid entry 10.0.0.0/33');
    expect(() => egressPolicy('', '', '80,9-x')).toThrow('GATEWAY_EGRESS_PORTS: invalid entry 9-x');
  });
});

describe('resolution (§7.3, §7.4)', () => {
  const policy = egressPolicy();
  const refused = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.unreachable(),
      (error: EgressError) => error.message,
    );

  it('refuses IP literals, localhost and names resolving to refused addresses, with the exact messages', async () => {
    expect(await refused(resolveUpstream(policy, '127.0.0.1', 1883))).toBe(
      'Upstream address refused: 127.0.0.1 (loopback)',
    );
    expect(await refused(resolveUpstream(policy, '169.254.169.254', 80))).toBe(
      'Upstream address refused: 169.254.169.254 (metadata)',
    );
    expect(await refused(resolveUpstream(policy, 'localhost', 1883))).toBe(
      'Upstream address refused: localhost resolves to 127.0.0.1 (loopback)',
    );
    const rebinding = async () => [
      { address: '169.254.169.254', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await refused(resolveUpstream(policy, 'devices.shop', 80, rebinding))).toBe(
      'Upstream address refused: devices.shop resolves to 169.254.169.254 (metadata)',
    );
    expect(await refused(resolveUpstream(policy, '10.0.0.2', 22))).toBe('Upstream port 22 is not allowed');
    expect(await refused(resolveUpstream(policy, 'nowhere.shop', 80, async () => []))).toBe(
      'Upstream host could not be resolved: nowhere.shop',
    );
  });

  it('keeps only allowed addresses, IPv4 first, and allows loopback when configured', async () => {
    const mixed = async () => [
      { address: 'fd12::5', family: 6 },
      { address: '127.0.0.1', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    expect(await resolveUpstream(policy, 'plc.shop', 80, mixed)).toEqual([
      { address: '10.0.0.5', family: 4 },
      { address: 'fd12::5', family: 6 },
    ]);
    expect(await resolveUpstream(egressPolicy('loopback'), 'localhost', 1883)).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
  });
});
