// The realtime limiter (dashboard spec §13.4) as a plain function: the in-process gateway asks it
// directly before it opens a socket or a public subscription; `/internal/gateway/rate-limit/consume`
// is a thin door over it. Counts live on the SQLite security limiter, so they hold across gateways.
import type { AuditLog } from '../../auth/audit-log.ts';
import { LimiterUnavailable } from '../../auth/limiter.ts';
import { consumeFixedWindow } from '../../auth/rate-limit.ts';
import type { Clock, TokenHasher } from '../../auth/tokens.ts';
import type { Store } from '../../db/store.ts';

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
  clock: Clock;
  tokens: TokenHasher;
  audit: AuditLog;
}

export interface ConsumeRequest {
  scope?: unknown;
  key?: unknown;
  limitPerMinute?: unknown;
}

export interface Consumption {
  allowed: boolean;
  retryAfterMs: number;
  remaining: number;
  reason: 'allowed' | 'limited';
}

export type ConsumeAnswer =
  | { status: 200; body: Consumption }
  | { status: 400; body: { error: string } }
  | { status: 503; body: { error: string; reason: 'backend_fail_closed' } };

const isScope = (value: unknown): value is RealtimeScope =>
  typeof value === 'string' && (REALTIME_SCOPES as readonly string[]).includes(value);

/** Absent or null = 1; other integers are clamped to 1…10000; anything else is refused. */
function limitOf(value: unknown): number | null {
  if (value === undefined || value === null) return 1;
  if (!Number.isInteger(value)) return null;
  return Math.min(MAX_LIMIT, Math.max(1, value as number));
}

export function consumeRealtimeLimit(deps: RealtimeLimiterDeps, request: ConsumeRequest): ConsumeAnswer {
  const { scope, key } = request;
  if (!isScope(scope)) return { status: 400, body: { error: 'Unsupported scope' } };
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH)
    return { status: 400, body: { error: 'Invalid key' } };
  const limit = limitOf(request.limitPerMinute);
  if (limit === null) return { status: 400, body: { error: 'limitPerMinute must be an integer' } };
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
    return { status: 503, body: { error: 'Security limiter unavailable', reason: 'backend_fail_closed' } };
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
    status: 200,
    body: {
      allowed: result.allowed,
      retryAfterMs: result.retryAfterMs,
      remaining: result.remaining,
      reason: result.allowed ? 'allowed' : 'limited',
    },
  };
}
