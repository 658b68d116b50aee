// The share-token revocation feed (dashboard spec §13.3) as a plain function: the in-process gateway
// reads it directly; `/internal/gateway/revoked-tokens` is a thin door over it. A gateway polls it
// with the cursor it was last given and drops the public streams the events name.
import { iso } from '../../auth/tokens.ts';
import type { Now } from '../../clock.ts';
import type { RevocationEventRow } from '../../db/repositories/dashboards.ts';
import type { Store } from '../../db/store.ts';

export interface RevocationFeedDeps {
  store: Store;
  clock: Now;
  /** `REALTIME_REVOKE_EVENT_RETENTION_SECONDS`. */
  retentionSeconds: number;
  /** `GATEWAY_REVOKED_TOKENS_MAX_BATCH`: the default and the largest page. */
  maxBatch: number;
}

export interface RevocationFeedRequest {
  /** The opaque cursor of the previous page; null or absent starts at the retention window. */
  sinceCursor?: unknown;
  /** Page size; clamped to 1…maxBatch. Anything but an integer is refused. */
  limit?: unknown;
}

export interface RevocationEvent {
  eventId: string;
  dashboardId: string;
  shareTokenVersion: number;
  revokedAt: string;
  reason: RevocationEventRow['reason'];
}

export interface RevocationPage {
  events: RevocationEvent[];
  nextCursor: string;
  /** The cursor was unreadable or past retention: the gateway must revalidate every stream. */
  cursorExpired: boolean;
}

export type RevocationFeedAnswer =
  | { status: 200; body: RevocationPage }
  | { status: 400; body: { error: string } };

interface Cursor {
  t: number;
  id: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ t: cursor.t, id: cursor.id })).toString('base64url');
}

/** The cursor inside the opaque text, or null when it is not one this server wrote. */
export function decodeCursor(text: string): Cursor | null {
  if (text.length === 0 || text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    const { t, id } = value as Record<string, unknown>;
    if (!Number.isSafeInteger(t) || !Number.isSafeInteger(id) || (id as number) < 0) return null;
    return { t: t as number, id: id as number };
  } catch {
    return null;
  }
}

/** The page size of a request: absent or null takes the default; out-of-range integers are clamped. */
function pageSize(limit: unknown, maxBatch: number): number | null {
  if (limit === undefined || limit === null) return maxBatch;
  if (!Number.isInteger(limit)) return null;
  return Math.min(maxBatch, Math.max(1, limit as number));
}

export function readRevocationFeed(
  deps: RevocationFeedDeps,
  request: RevocationFeedRequest,
): RevocationFeedAnswer {
  const limit = pageSize(request.limit, deps.maxBatch);
  if (limit === null) return { status: 400, body: { error: 'limit must be an integer' } };
  const now = deps.clock();
  const windowStart = now - deps.retentionSeconds * 1000;
  const given = request.sinceCursor;
  // Anything but a string or null is as unreadable as a damaged cursor: start over, revalidate.
  const cursor = typeof given === 'string' ? decodeCursor(given) : null;
  const valid = cursor !== null && cursor.t >= windowStart;
  const cursorExpired = given !== undefined && given !== null && !valid;
  const rows = deps.store.dashboards.revocationEventsAfter(valid ? cursor.id : 0, iso(windowStart), limit);
  const last = rows.at(-1);
  const nextCursor = last
    ? encodeCursor({ t: Date.parse(last.createdAt), id: last.id })
    : valid
      ? (given as string)
      : encodeCursor({ t: now, id: deps.store.dashboards.lastRevocationEventId() });
  return {
    status: 200,
    body: {
      events: rows.map((row) => ({
        eventId: String(row.id),
        dashboardId: row.dashboardId,
        shareTokenVersion: row.shareTokenVersion,
        revokedAt: row.revokedAt,
        reason: row.reason,
      })),
      nextCursor,
      cursorExpired,
    },
  };
}

/** Retention: run at start and at least hourly (with the limiter's pruning). */
export function pruneRevocationEvents(
  deps: Pick<RevocationFeedDeps, 'store' | 'clock' | 'retentionSeconds'>,
) {
  return deps.store.dashboards.pruneRevocationEvents(iso(deps.clock() - deps.retentionSeconds * 1000));
}
