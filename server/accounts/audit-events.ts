// Reading the audit trail of §14 (writing it is AuditLog's, in server/auth).
import type { AuditRow } from '../db/repositories/audit.ts';
import type { AccountServices } from './services.ts';

/** Newest first; `limit` defaults to 100 and is clamped to 1–500; `actionPrefix` is a literal prefix. */
export function listAuditEvents(
  services: AccountServices,
  query: { limit?: number | null; actionPrefix?: string | null },
): AuditRow[] {
  const limit = Math.min(500, Math.max(1, query.limit ?? 100));
  return services.store.audit.list(limit, query.actionPrefix ?? '');
}
