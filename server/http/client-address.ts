// Who is on the other end of a request (dashboard-api.md §5.6): the one place that reads socket
// addresses and `X-Forwarded-For`, for the throttles and audit metadata of the dashboard API and for
// the loopback-only routes of the LAN door.
import { BlockList, isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.ts';

/** §5.6 normalisation; returns null when the result is not an IP address. */
export function normaliseIp(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  let ip = raw.trim();
  if (ip.startsWith('"') && ip.endsWith('"') && ip.length >= 2) ip = ip.slice(1, -1).trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) ip = bracketed[1] ?? '';
  else if (/^[\d.]+:\d+$/.test(ip)) ip = ip.slice(0, ip.lastIndexOf(':'));
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  ip = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) ip = mapped[1] ?? '';
  return isIP(ip) ? ip : null;
}

/** 127.0.0.0/8 and ::1, in any of the forms `normaliseIp` accepts (IPv4-mapped included). */
export function isLoopbackIp(ip: string | null | undefined): boolean {
  const normalised = normaliseIp(ip);
  if (!normalised) return false;
  return normalised === '::1' || normalised.startsWith('127.');
}

/** `TRUSTED_PROXIES` when unset: a reverse proxy on the workstation itself. */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/**
 * One `TRUSTED_PROXIES` entry as a range: an IP address (a range of one) or `address/prefix`.
 * Returns null for anything else, so configuration can refuse it.
 */
export function parseProxyRange(entry: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const [rawAddress = '', rawPrefix, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  // A bare address only: no brackets, port or zone, which normaliseIp would quietly accept.
  const address = isIP(rawAddress.trim()) ? normaliseIp(rawAddress) : null;
  if (!address) return null;
  const family = isIP(address) === 6 ? 6 : 4;
  const max = family === 4 ? 32 : 128;
  if (rawPrefix === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(rawPrefix) || Number(rawPrefix) > max) return null;
  return { address, prefix: Number(rawPrefix), family };
}

export interface ProxyTrust {
  /** `API_TRUST_PROXY_HOPS`: 0 ignores `X-Forwarded-For` altogether. */
  hops: number;
  /** `TRUSTED_PROXIES`: the socket peers whose `X-Forwarded-For` is believed. */
  trustedProxies: readonly string[];
}

export interface ClientAddress {
  /** The client address for throttles, limiters and audit metadata (never for authorisation). */
  ip: string;
  /** The request came from a trusted proxy (hops ≥ 1 and the socket peer in `TRUSTED_PROXIES`). */
  viaProxy: boolean;
  /** `ip` came from `X-Forwarded-For` (through a trusted proxy, with enough valid entries). */
  forwarded: boolean;
}

/** How often the "does not match" warning may be logged (§5.6). */
const WARNING_INTERVAL_MS = 60_000;

/**
 * Resolves client addresses for one workstation. Forwarded addresses are believed only from a
 * trusted proxy: anyone else could pick a new "address" per request to dodge the per-IP throttles
 * or to pass as a client on the workstation.
 */
export class ClientAddresses {
  readonly #hops: number;
  readonly #proxies = new BlockList();
  readonly #logger: Logger | undefined;
  readonly #clock: () => number;
  #lastWarning = Number.NEGATIVE_INFINITY;
  #suppressed = 0;

  constructor(trust: ProxyTrust, logger?: Logger, clock: () => number = Date.now) {
    this.#hops = trust.hops;
    this.#logger = logger;
    this.#clock = clock;
    for (const entry of trust.trustedProxies) {
      const range = parseProxyRange(entry);
      if (!range) throw new Error(`not an IP address or CIDR range: ${entry}`);
      this.#proxies.addSubnet(range.address, range.prefix, range.family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  isTrustedProxy(ip: string | null): boolean {
    if (!ip) return false;
    return this.#proxies.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * With `hops` trusted proxies in front, the N-th `X-Forwarded-For` entry from the right is the
   * client; entries further left are the client's to forge. Too few or invalid entries fall back
   * to the socket address with a warning (logged at most once a minute).
   */
  resolve(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): ClientAddress {
    const normalisedSocket = normaliseIp(socketAddress);
    const socket = normalisedSocket ?? socketAddress ?? 'unknown';
    if (this.#hops === 0 || !this.isTrustedProxy(normalisedSocket)) {
      return { ip: socket, viaProxy: false, forwarded: false };
    }
    const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
    const entries = joined.trim() === '' ? [] : joined.split(',').map((entry) => entry.trim());
    const trusted = entries.slice(-this.#hops).map(normaliseIp);
    if (entries.length < this.#hops || trusted.some((ip) => ip === null)) {
      this.#warnMismatch(joined);
      return { ip: socket, viaProxy: true, forwarded: false };
    }
    return { ip: trusted[0] as string, viaProxy: true, forwarded: true };
  }

  /** The address of a fastify request. */
  of(request: FastifyRequest): ClientAddress {
    return this.resolve(request.socket.remoteAddress, request.headers['x-forwarded-for']);
  }

  /**
   * True for a client on the workstation itself. Through a trusted proxy that is the forwarded
   * client; a proxy's request that does not say whom it forwards is not local, since the proxy
   * itself sits on the workstation and would otherwise make every LAN client look local.
   */
  isLocal(request: FastifyRequest): boolean {
    const client = this.of(request);
    if (client.viaProxy) return client.forwarded && isLoopbackIp(client.ip);
    return isLoopbackIp(client.ip);
  }

  #warnMismatch(forwardedFor: string): void {
    const now = this.#clock();
    if (now - this.#lastWarning < WARNING_INTERVAL_MS) {
      this.#suppressed += 1;
      return;
    }
    this.#logger?.warn(
      { forwardedFor, hops: this.#hops, ...(this.#suppressed > 0 ? { suppressed: this.#suppressed } : {}) },
      'X-Forwarded-For does not match API_TRUST_PROXY_HOPS; using the socket address',
    );
    this.#lastWarning = now;
    this.#suppressed = 0;
  }
}

/** Addresses as a workstation without a reverse proxy sees them: socket addresses only. */
export const SOCKET_ADDRESSES = new ClientAddresses({ hops: 0, trustedProxies: DEFAULT_TRUSTED_PROXIES });

export const LOCAL_ONLY_DETAIL = 'This route accepts only clients on the workstation itself.';

/**
 * A hook (onRequest or preHandler) that lets only clients on this machine through: the socket
 * address, or the forwarded client when a trusted proxy sent the request (§5.6). Never a forwarding
 * header from anyone else: those are the client's to forge. `refusal` is the 403 body, for doors
 * whose error shape differs.
 */
export function loopbackOnly(
  addresses: ClientAddresses,
  allowRemote: () => boolean = () => false,
  refusal: unknown = { detail: LOCAL_ONLY_DETAIL },
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (allowRemote() || addresses.isLocal(request)) return;
    await reply.code(403).send(refusal);
  };
}
