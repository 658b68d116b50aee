// The realtime limiter (dashboard spec §13.4, gateway spec §5.2) as a plain function that answers with
// a verdict: the in-process gateway asks it before it opens a socket or a public subscription, and the
// `/internal/gateway/rate-limit/consume` door maps the same verdict to HTTP (checks.ts). Counts live on
// the SQLite security limiter, so they hold across gateways.
import type { AuditLog } from '../../auth/audit-log.ts';
import { consumeFixedWindow, LimiterUnavailable } from '../../auth/rate-limit.ts';
import type { TokenHasher } from '../../auth/tokens.ts';
import type { Now } from '../../clock.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../../log.ts';

export const REALTIME_SCOPES = [
  'realtime-connect-ip',
  'realtime-public-subscribe-ip',
  'realtime-public-subscribe-share',
] as const;
export type RealtimeScope = (typeof REALTIME_SCOPES)[number];

const MAX_KEY_LENGTH = 512;
const MAX_LIMIT = 10_000;

export interface RealtimeLimiterDeps {
  store: Store;
  clock: Now;
  tokens: TokenHasher;
  audit: AuditLog;
}

export interface ConsumeRequest {
  scope?: unknown;
  key?: unknown;
  limitPerMinute?: unknown;
}

export type RealtimeVerdict =
  | { kind: 'counted'; allowed: boolean; retryAfterMs: number; remaining: number }
  /** The request itself is wrong: `error` says how. */
  | { kind: 'invalid'; error: string }
  /** The limiter could not count (and audited it): fail closed. */
  | { kind: 'unavailable' };

const isScope = (value: unknown): value is RealtimeScope =>
  typeof value === 'string' && (REALTIME_SCOPES as readonly string[]).includes(value);

/** Absent or null = 1; other integers are clamped to 1…10000; anything else is refused. */
function limitOf(value: unknown): number | null {
  if (value === undefined || value === null) return 1;
  if (!Number.isInteger(value)) return null;
  return Math.min(MAX_LIMIT, Math.max(1, value as number));
}

export function consumeRealtimeLimit(deps: RealtimeLimiterDeps, request: ConsumeRequest): RealtimeVerdict {
  const { scope, key } = request;
  if (!isScope(scope)) return { kind: 'invalid', error: 'Unsupported scope' };
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH)
    return { kind: 'invalid', error: 'Invalid key' };
  const limit = limitOf(request.limitPerMinute);
  if (limit === null) return { kind: 'invalid', error: 'limitPerMinute must be an integer' };
  const normalised = key.toLowerCase();
  const keyHash = deps.tokens.hash('limiter', `realtime:${scope}:${normalised}`);
  let result: ReturnType<typeof consumeFixedWindow>;
  try {
    result = consumeFixedWindow(deps.store, deps.clock, keyHash, limit);
  } catch (error) {
    if (!(error instanceof LimiterUnavailable)) throw error;
    deps.audit.record({
      actorUserId: null,
      action: 'gateway.realtime.limiter_unavailable',
      targetType: 'limiter',
      targetId: null,
      metadata: { scope },
    });
    return { kind: 'unavailable' };
  }
  if (result.firstRefusal)
    deps.audit.record({
      actorUserId: null,
      action: 'gateway.realtime.rate_limited',
      targetType: 'limiter',
      targetId: null,
      // The share scope's key is a share token: never written to the trail.
      metadata: { scope, ip: scope.endsWith('-ip') ? normalised : null },
    });
  return {
    kind: 'counted',
    allowed: result.allowed,
    retryAfterMs: result.retryAfterMs,
    remaining: result.remaining,
  };
}

export type LimiterVerdict =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number }
  | { unavailable: true };

/** The in-process question: one hit on a scope the gateway names itself. */
export function consumeRealtime(
  deps: RealtimeLimiterDeps & { logger: Logger },
  scope: RealtimeScope,
  key: string,
  limitPerMinute: number,
): LimiterVerdict {
  const verdict = consumeRealtimeLimit(deps, { scope, key, limitPerMinute });
  if (verdict.kind === 'counted')
    return verdict.allowed ? { allowed: true } : { allowed: false, retryAfterMs: verdict.retryAfterMs };
  // Fail closed: a limiter that cannot count refuses (and was audited by the limiter itself).
  deps.logger.error({ event: 'gateway.limiter.unavailable', scope }, 'gateway.limiter.unavailable');
  return { unavailable: true };
}
