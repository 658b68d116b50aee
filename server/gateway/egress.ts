// The egress policy of gateway spec §7: which addresses the gateway may open a connection to. The
// winding door and the machine-control routes trust loopback callers, so a dashboard must never be
// able to make the workstation call itself (or a cloud metadata service) unless an admin said so.
// A name is resolved once per connection attempt and the checked address is the one connected to,
// so a DNS answer that changes between check and connect (rebinding) cannot slip past.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export type AddressClass =
  | 'unspecified'
  | 'multicast'
  | 'metadata'
  | 'loopback'
  | 'self'
  | 'link-local'
  | 'reserved'
  | 'private'
  | 'public';

/** An ALLOW or DENY entry: an address or range, or a class; optionally one port. */
export interface EgressEntry {
  kind: 'address' | 'range' | 'class';
  /** The address or class name as written (lower-case). */
  value: string;
  range?: BlockList;
  port: number | null;
}

export interface EgressPolicy {
  allow: EgressEntry[];
  deny: EgressEntry[];
  /** Inclusive port ranges. */
  ports: [number, number][];
}

export const DEFAULT_EGRESS_PORTS = '80,443,1883,8883,1024-65535';
export const DNS_TIMEOUT_MS = 5000;

const ALLOWABLE = new Set(['loopback', 'self', 'link-local', 'reserved']);
const DENIABLE = new Set(['private', 'public']);
const DEFAULT_ALLOWED = new Set<AddressClass>(['private', 'public']);

function blocks(entries: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of entries) list.addSubnet(network, prefix, type);
  return list;
}

const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);
// The §7.1 table, first match wins (metadata and self are handled before and between these).
const CLASSES: [AddressClass, BlockList][] = [
  [
    'unspecified',
    blocks([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  [
    'multicast',
    blocks([
      ['224.0.0.0', 4, 'ipv4'],
      ['255.255.255.255', 32, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ]),
  ],
];
const AFTER_SELF: [AddressClass, BlockList][] = [
  [
    'link-local',
    blocks([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'reserved',
    blocks([
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['2001:db8::', 32, 'ipv6'],
      ['100::', 64, 'ipv6'],
    ]),
  ],
  [
    'private',
    blocks([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
];
const LOOPBACK = blocks([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}

/**
 * IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are judged by their IPv4 part, so
 * `::ffff:127.0.0.1` is loopback like `127.0.0.1`.
 */
export function canonicalAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  const g = ipv6Groups(address);
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return address.toLowerCase().split('%')[0] ?? address;
  const hi = g[6] ?? 0;
  const lo = g[7] ?? 0;
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

const typeOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** This workstation's interface addresses, read anew at each resolution (they change with DHCP). */
export function interfaceAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) found.add(canonicalAddress(entry.address));
  return found;
}

/** §7.1: the class of one address; `self` from the given interface addresses. */
export function classify(address: string, self: Set<string> = interfaceAddresses()): AddressClass {
  const ip = canonicalAddress(address);
  const type = typeOf(ip);
  for (const [name, list] of CLASSES) if (list.check(ip, type)) return name;
  if (METADATA.has(ip)) return 'metadata';
  if (LOOPBACK.check(ip, type)) return 'loopback';
  if (self.has(ip)) return 'self';
  for (const [name, list] of AFTER_SELF) if (list.check(ip, type)) return name;
  return 'public';
}

/** Parses one comma-separated §7.2 variable; an invalid entry refuses start with the spec's message. */
export function parseEgressEntries(variable: string, text: string, classes: 'allow' | 'deny'): EgressEntry[] {
  const names = classes === 'allow' ? ALLOWABLE : DENIABLE;
  const entries: EgressEntry[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = parseEntry(entry.toLowerCase(), names);
    if (!parsed) throw new EgressConfigError(`${variable}: invalid entry ${entry}`);
    entries.push(parsed);
  }
  return entries;
}

export class EgressConfigError extends Error {
  override name = 'EgressConfigError';
}

function parsePort(text: string | undefined): number | null | undefined {
  if (text === undefined) return null;
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function parseEntry(entry: string, classes: Set<string>): EgressEntry | null {
  let target = entry;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    target = bracketed[1] ?? '';
    portText = bracketed[2];
    if (isIP(target.split('/')[0] ?? '') !== 6) return null;
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    [target = '', portText] = entry.split(':');
  } else if (entry.includes(':') && isIP(entry.split('/')[0] ?? '') !== 6) {
    return null;
  }
  const port = parsePort(portText);
  if (port === undefined) return null;
  if (classes.has(target)) return { kind: 'class', value: target, port };
  const [network = '', prefixText, ...extra] = target.split('/');
  if (extra.length > 0 || isIP(network) === 0) return null;
  if (prefixText === undefined) return { kind: 'address', value: canonicalAddress(network), port };
  const type = typeOf(network);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > (type === 'ipv4' ? 32 : 128)) return null;
  const range = new BlockList();
  range.addSubnet(network, prefix, type);
  return { kind: 'range', value: target, range, port };
}

/** `GATEWAY_EGRESS_PORTS`: ports and inclusive ranges. */
export function parseEgressPorts(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [from, to, ...extra] = entry.split('-');
    const low = parsePort(from);
    const high = to === undefined ? low : parsePort(to);
    if (extra.length > 0 || low == null || high == null || high < low)
      throw new EgressConfigError(`GATEWAY_EGRESS_PORTS: invalid entry ${entry}`);
    ranges.push([low, high]);
  }
  return ranges;
}

export function egressPolicy(allow = '', deny = '', ports = DEFAULT_EGRESS_PORTS): EgressPolicy {
  return {
    allow: parseEgressEntries('GATEWAY_EGRESS_ALLOW', allow, 'allow'),
    deny: parseEgressEntries('GATEWAY_EGRESS_DENY', deny, 'deny'),
    ports: parseEgressPorts(ports),
  };
}

function matches(entry: EgressEntry, ip: string, cls: AddressClass, port: number): boolean {
  if (entry.port !== null && entry.port !== port) return false;
  if (entry.kind === 'class') return entry.value === cls;
  if (entry.kind === 'address') return entry.value === ip;
  return entry.range?.check(ip, typeOf(ip)) ?? false;
}

/** §7.2 for one address and port: null when allowed, else the class (or `denied`) that refused it. */
export function refusal(
  policy: EgressPolicy,
  address: string,
  port: number,
  self?: Set<string>,
): AddressClass | 'denied' | null {
  const ip = canonicalAddress(address);
  const cls = classify(ip, self);
  if (policy.deny.some((entry) => matches(entry, ip, cls, port))) return 'denied';
  if (cls === 'unspecified' || cls === 'multicast') return cls;
  if (cls === 'metadata')
    return policy.allow.some((e) => e.kind === 'address' && matches(e, ip, cls, port)) ? null : cls;
  if (DEFAULT_ALLOWED.has(cls)) return null;
  return policy.allow.some((entry) => matches(entry, ip, cls, port)) ? null : cls;
}

export type EgressFailure = 'port' | 'refused' | 'unresolved';

/** A refused or unresolvable upstream; `message` is the exact §7.4 text. */
export class EgressError extends Error {
  override name = 'EgressError';
  readonly failure: EgressFailure;
  readonly details: { host: string; address?: string; class?: string; port?: number };
  constructor(failure: EgressFailure, message: string, details: EgressError['details']) {
    super(message);
    this.failure = failure;
    this.details = details;
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * §7.3: the addresses of `host` this policy allows, IPv4 first, to be connected to in order. Throws
 * `EgressError` with the §7.4 message when the port or every address is refused, or nothing resolves
 * within 5 s.
 */
export async function resolveUpstream(
  policy: EgressPolicy,
  rawHost: string,
  port: number,
  resolver: Resolver = systemResolver,
): Promise<ResolvedAddress[]> {
  const host = rawHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (!policy.ports.some(([low, high]) => port >= low && port <= high))
    throw new EgressError('port', `Upstream port ${port} is not allowed`, { host, port });
  const self = interfaceAddresses();
  if (isIP(host) !== 0) {
    const cls = refusal(policy, host, port, self);
    if (cls !== null)
      throw new EgressError('refused', `Upstream address refused: ${host} (${cls})`, {
        host,
        address: host,
        class: cls,
      });
    return [{ address: host, family: isIP(host) as 4 | 6 }];
  }
  let found: { address: string; family: number }[];
  if (host === 'localhost' || host.endsWith('.localhost')) found = [{ address: '127.0.0.1', family: 4 }];
  else {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), DNS_TIMEOUT_MS);
    });
    try {
      found = await Promise.race([resolver(host), timeout]);
    } catch {
      found = [];
    } finally {
      clearTimeout(timer);
    }
  }
  if (found.length === 0)
    throw new EgressError('unresolved', `Upstream host could not be resolved: ${host}`, { host });
  const ordered = [...found.filter((a) => a.family === 4), ...found.filter((a) => a.family !== 4)];
  const allowed: ResolvedAddress[] = [];
  let first: { address: string; cls: string } | undefined;
  for (const { address, family } of ordered) {
    const cls = refusal(policy, address, port, self);
    if (cls === null) allowed.push({ address, family: family === 6 ? 6 : 4 });
    else first ??= { address, cls };
  }
  if (allowed.length === 0 && first)
    throw new EgressError(
      'refused',
      `Upstream address refused: ${host} resolves to ${first.address} (${first.cls})`,
      { host, address: first.address, class: first.cls },
    );
  return allowed;
}

/** The port a URL names, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return (
    { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443, 'mqtt:': 1883, 'mqtts:': 8883 }[url.protocol] ?? 0
  );
}
