// The realtime socket's wire contract (gateway spec §3): limits, close codes and the exact texts.

export const SUBPROTOCOL = 'towpath.gateway.v1';

export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;
export const CLIENT_RATE_WINDOW_MS = 10_000;
export const CLIENT_RATE_LIMIT = 120;
export const MAX_INVALID_MESSAGES = 20;
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;
export const SERVER_PING_MS = 30_000;
export const HEARTBEAT_TIMEOUT_MS = 75_000;
export const NO_SUBSCRIPTIONS_MS = 60_000;
export const SHUTDOWN_GRACE_MS = 2000;

export const CLOSE = {
  normal: [1000, 'No subscriptions'],
  shutdown: [1001, 'Server shutting down'],
  binary: [1003, 'Binary frames are not supported'],
  tooMany: [1008, 'Too many messages'],
  tooManyInvalid: [1008, 'Too many invalid messages'],
  tooLarge: [1009, 'Message too large'],
  internal: [1011, 'Internal error'],
  heartbeat: [4000, 'Heartbeat timeout'],
  slow: [4001, 'Client too slow'],
} as const satisfies Record<string, readonly [number, string]>;

export type ClosedReason =
  | 'unsubscribed'
  | 'invalid_request'
  | 'denied'
  | 'rate_limited'
  | 'limit_reached'
  | 'unavailable'
  | 'egress_refused'
  | 'upstream_failed'
  | 'token_expired'
  | 'revoked'
  | 'server_shutdown';

/** `closed` reasons counted in `realtimeErrorCount` (§9). */
export const ERROR_REASONS = new Set<ClosedReason>([
  'invalid_request',
  'denied',
  'rate_limited',
  'limit_reached',
  'unavailable',
  'egress_refused',
  'upstream_failed',
]);

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type Kind = 'sse' | 'websocket' | 'mqtt' | 'machine';
export const STREAMED_WITH_TOKEN = new Set(['sse', 'websocket', 'mqtt']);

/** The `closed` extra fields: `status` (denied), `cause` (revoked), `retryAfterMs`. */
export interface ClosedExtra {
  status?: number;
  cause?: string;
  retryAfterMs?: number;
}

/** A §3.3–§3.4/§8 refusal, carried to the one place that writes `closed`. */
export class Refusal extends Error {
  override name = 'Refusal';
  readonly reason: ClosedReason;
  readonly extra: ClosedExtra;
  constructor(reason: ClosedReason, message: string, extra: ClosedExtra = {}) {
    super(message);
    this.reason = reason;
    this.extra = extra;
  }
}

const STALE_CAUSES = new Set(['share_token_rotated', 'visibility_changed', 'owner_offboarded']);

/** §6.2: the `cause` of a revocation from the failed check's message and the triggering event. */
export function causeOf(message: string, trigger?: string): string {
  switch (message) {
    case 'Share token is stale':
      return trigger && STALE_CAUSES.has(trigger) ? trigger : 'share_token_stale';
    case 'Dashboard not found':
      return 'dashboard_deleted';
    case 'Datasource not found':
    case 'Datasource changed since the token was minted':
    case 'Datasource disabled':
      return 'datasource_changed';
    case 'Public use not allowed':
      return 'public_use_revoked';
    case 'Credential profile unavailable':
      return 'credentials_unavailable';
    case 'Topic not allowed by the broker profile':
      return 'topic_not_allowed';
    default:
      return 'access_revoked';
  }
}
