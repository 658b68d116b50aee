import { isIP } from 'node:net';
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

/**
 * The client address for throttles, limiters and audit metadata (never for authorisation). With
 * `hops` trusted proxies in front, the N-th `X-Forwarded-For` entry from the right is the client;
 * entries further left are the client's to forge.
 */
export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  hops: number,
  logger?: Logger,
): string {
  const socket = normaliseIp(socketAddress) ?? socketAddress ?? 'unknown';
  if (hops === 0) return socket;
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const entries = joined.trim() === '' ? [] : joined.split(',').map((entry) => entry.trim());
  const trusted = entries.slice(-hops);
  const normalised = trusted.map(normaliseIp);
  if (entries.length < hops || normalised.some((ip) => ip === null)) {
    logger?.warn(
      { forwardedFor: joined, hops },
      'X-Forwarded-For does not match API_TRUST_PROXY_HOPS; using the socket address',
    );
    return socket;
  }
  return normalised[0] as string;
}

export function isLoopbackIp(ip: string | null | undefined): boolean {
  const normalised = normaliseIp(ip);
  if (!normalised) return false;
  return normalised === '::1' || /^127\./.test(normalised);
}
