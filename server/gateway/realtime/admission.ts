// Upgrade admission (gateway spec §3.1): the checks a WebSocket upgrade passes before its handshake, in
// the spec's order: path, a well-formed upgrade and key, origin, the per-address connect limiter, then
// the per-address and global socket caps. A refusal is a plain HTTP answer on the raw socket.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClientAddresses } from '../../http/client-address.ts';
import { refuseUpgrade } from '../../http/upgrade-refusal.ts';
import type { Logger } from '../../log.ts';
import { consumeRealtime, type RealtimeLimiterDeps } from '../internal/rate-limit.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { GatewaySettings } from '../settings.ts';
import type { SubscriptionRegistry } from './registry.ts';

export const REALTIME_PATH = '/gateway/realtime';

export interface AdmissionDeps extends RealtimeLimiterDeps {
  settings: GatewaySettings;
  metrics: GatewayMetrics;
  logger: Logger;
  clientAddresses: ClientAddresses;
  corsOrigins: readonly string[];
}

/**
 * Runs the checks of one upgrade; answers and returns null when one fails, or returns the client's
 * address with its socket already counted against the caps.
 */
export function admitUpgrade(
  deps: AdmissionDeps,
  registry: SubscriptionRegistry,
  stopping: boolean,
  request: IncomingMessage,
  socket: Duplex,
): string | null {
  const { metrics, settings } = deps;
  const path = (request.url ?? '').split('?')[0];
  const isWebSocket = (request.headers.upgrade ?? '').toLowerCase() === 'websocket';
  if (path === REALTIME_PATH && isWebSocket) metrics.realtimeConnectionAttempts += 1;
  const ip = deps.clientAddresses.resolve(
    request.socket.remoteAddress,
    request.headers['x-forwarded-for'],
  ).ip;
  const reject = (
    status: number,
    error: string,
    extra: Record<string, unknown> = {},
    headers: string[] = [],
  ): null => {
    if (path === REALTIME_PATH && isWebSocket) metrics.realtimeConnectionsRejected += 1;
    deps.logger.warn({ event: 'gateway.upgrade.rejected', ip, status, error }, 'gateway.upgrade.rejected');
    refuseUpgrade(socket, status, { error, ...extra }, headers);
    return null;
  };
  if (path !== REALTIME_PATH || !settings.enabled || stopping) return reject(404, 'Not found');
  const key = request.headers['sec-websocket-key'];
  if (
    request.method !== 'GET' ||
    !isWebSocket ||
    typeof key !== 'string' ||
    !/^[A-Za-z0-9+/]{22}==$/.test(key) ||
    request.headers['sec-websocket-version'] !== '13'
  )
    return reject(426, 'WebSocket upgrade required', {}, ['upgrade: websocket']);
  if (!originAllowed(deps.corsOrigins, request.headers.origin, request.headers.host))
    return reject(403, 'Origin not allowed');
  const verdict = consumeRealtime(deps, 'realtime-connect-ip', ip, settings.connectIpPerMinute);
  if ('unavailable' in verdict) return reject(503, 'Security limiter unavailable');
  if (!verdict.allowed) {
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    return reject(429, 'Too many realtime connections', { retryAfterMs: verdict.retryAfterMs }, [
      `retry-after: ${seconds}`,
    ]);
  }
  if (registry.openFrom(ip) >= settings.maxSocketsPerIp)
    return reject(429, 'Too many open realtime connections from this address');
  if (registry.clients.size >= settings.maxSockets) return reject(503, 'Realtime gateway is at capacity');
  registry.reserve(ip);
  return ip;
}

/** No Origin (not a browser), the page's own origin, or one of the configured CORS origins. */
function originAllowed(corsOrigins: readonly string[], origin?: string, host?: string): boolean {
  if (origin === undefined) return true;
  const lower = origin.toLowerCase();
  if (host && (lower === `http://${host.toLowerCase()}` || lower === `https://${host.toLowerCase()}`))
    return true;
  return corsOrigins.some((allowed) => allowed.toLowerCase() === lower);
}
