// What every upstream connection shares: the egress-checked address it is pinned to, the intent's
// headers minus hop-by-hop ones, and telling a TLS failure (not retried) from a network one.
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../egress.ts';

/**
 * A `lookup` for node:http/https, node:net and `ws` that answers the already checked address: the
 * socket goes there while `Host`, SNI and certificate checks still use the URL's host (§7.3).
 */
export function pinnedLookup({ address, family }: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

/** Request headers an intent may not set (§2.2): the connection's own, and `accept-encoding`. */
const HOP_BY_HOP = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'accept-encoding',
]);

export function intentHeaders(headers: unknown): Record<string, string> {
  const kept: Record<string, string> = {};
  if (headers === null || typeof headers !== 'object') return kept;
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value !== 'string' || HOP_BY_HOP.has(name.toLowerCase())) continue;
    kept[name.toLowerCase()] = value;
  }
  return kept;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/** The Node error code of a TLS handshake failure, or null for any other error. */
export function tlsFailureCode(error: unknown): string | null {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && TLS_CODE.test(code) ? code : null;
}
