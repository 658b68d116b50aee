import type { Now } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { Logger } from '../log.ts';
import { iso } from './tokens.ts';

export type AuditTargetType =
  | 'dashboard'
  | 'user'
  | 'invite'
  | 'password_reset'
  | 'auth_policy'
  | 'credential_profile'
  | 'broker_profile'
  | 'service_account'
  | 'service_account_token'
  | 'limiter';

export interface AuditEntry {
  actorUserId: string | null;
  action: string;
  targetType: AuditTargetType;
  targetId: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * The audit trail of §14. Records are written after the operation's commit and never decide its
 * outcome: a failed write is logged and counted, and the caller still gets its result.
 */
export class AuditLog {
  readonly #store: Store;
  readonly #clock: Now;
  readonly #logger: Logger;
  readonly #onFailure: () => void;

  constructor(store: Store, clock: Now, logger: Logger, onFailure: () => void) {
    this.#store = store;
    this.#clock = clock;
    this.#logger = logger;
    this.#onFailure = onFailure;
  }

  record(entry: AuditEntry): void {
    const at = iso(this.#clock());
    try {
      this.#store.audit.insert({
        actorUserId: entry.actorUserId,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        metadata: entry.metadata ?? {},
        createdAt: at,
        updatedAt: at,
      });
    } catch (error) {
      this.#onFailure();
      this.#logger.error({ err: error, action: entry.action }, 'audit write failed');
    }
  }
}
