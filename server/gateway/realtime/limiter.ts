// The realtime limiter scopes of gateway spec §5.2 on the §16 security limiter (fail-closed):
// counted under H("limiter", "realtime:<scope>:<key>") in fixed 60 s windows.
import type { AuditLog } from '../../auth/audit-log.ts';
import { LimiterUnavailable } from '../../auth/limiter.ts';
import { consumeFixedWindow } from '../../auth/rate-limit.ts';
import type { Clock, TokenHasher } from '../../auth/tokens.ts';
import type { Store } from '../../db/store.ts';
import type { Logger } from '../../log.ts';

export type RealtimeScope =
  | 'realtime-connect-ip'
  | 'realtime-public-subscribe-ip'
  | 'realtime-public-subscribe-share';

export type LimiterVerdict =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number }
  | { unavailable: true };

export interface RealtimeLimiterDeps {
  store: Store;
  clock: Clock;
  tokens: TokenHasher;
  audit: AuditLog;
  logger: Logger;
}

export function consumeRealtime(
  deps: RealtimeLimiterDeps,
  scope: RealtimeScope,
  key: string,
  limitPerMinute: number,
  ip: string,
): LimiterVerdict {
  try {
    const hash = deps.tokens.hash('limiter', `realtime:${scope}:${key.toLowerCase()}`);
    const result = consumeFixedWindow(deps.store, deps.clock, hash, limitPerMinute);
    if (result.allowed) return { allowed: true };
    if (result.firstRefusal)
      deps.audit.record({
        actorUserId: null,
        action: 'gateway.realtime.rate_limited',
        targetType: 'limiter',
        targetId: null,
        metadata: { scope, ip },
      });
    return { allowed: false, retryAfterMs: result.retryAfterMs };
  } catch (error) {
    if (!(error instanceof LimiterUnavailable)) throw error;
    deps.logger.error({ event: 'gateway.limiter.unavailable', scope }, 'gateway.limiter.unavailable');
    deps.audit.record({
      actorUserId: null,
      action: 'gateway.realtime.limiter_unavailable',
      targetType: 'limiter',
      targetId: null,
      metadata: { scope },
    });
    return { unavailable: true };
  }
}
