// The realtime limiter scopes of gateway spec §5.2, asked in-process: the same plain function the
// `/internal/gateway/rate-limit/consume` door serves (dashboard spec §13.4), read as a verdict.
import type { Logger } from '../../log.ts';
import {
  consumeRealtimeLimit,
  type RealtimeLimiterDeps as LimitDeps,
  type RealtimeScope,
} from '../internal/rate-limit.ts';

export type { RealtimeScope };

export type LimiterVerdict =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number }
  | { unavailable: true };

export interface RealtimeLimiterDeps extends LimitDeps {
  logger: Logger;
}

export function consumeRealtime(
  deps: RealtimeLimiterDeps,
  scope: RealtimeScope,
  key: string,
  limitPerMinute: number,
): LimiterVerdict {
  const answer = consumeRealtimeLimit(deps, { scope, key, limitPerMinute });
  if (answer.status === 200)
    return answer.body.allowed
      ? { allowed: true }
      : { allowed: false, retryAfterMs: answer.body.retryAfterMs };
  // Fail closed: a limiter that cannot count refuses (and was audited by the limiter itself).
  deps.logger.error({ event: 'gateway.limiter.unavailable', scope }, 'gateway.limiter.unavailable');
  return { unavailable: true };
}
