// Gateway spec §11: a refused upstream is logged every time and audited once per dashboard,
// datasource and address per hour, so a dashboard pointed at the workstation itself is seen by the
// admin without one audit row per viewer.
import type { AuditLog } from '../auth/audit-log.ts';
import type { Now } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { EgressError } from './egress.ts';

const HOUR_MS = 60 * 60 * 1000;

export class EgressRefusals {
  readonly #audit: AuditLog;
  readonly #logger: Logger;
  readonly #clock: Now;
  readonly #audited = new Map<string, number>();

  constructor(audit: AuditLog, logger: Logger, clock: Now) {
    this.#audit = audit;
    this.#logger = logger;
    this.#clock = clock;
  }

  record(error: EgressError, dashboardId: string | undefined, datasourceId: string | undefined): void {
    const { host, address, port } = error.details;
    const cls = error.details.class ?? null;
    this.#logger.warn(
      { event: 'gateway.egress.refused', dashboardId, datasourceId, host, address, class: cls, port },
      'gateway.egress.refused',
    );
    if (dashboardId === undefined) return;
    const now = this.#clock();
    const key = `${dashboardId} ${datasourceId} ${address ?? `port ${port}`}`;
    const last = this.#audited.get(key);
    if (last !== undefined && now - last < HOUR_MS) return;
    if (this.#audited.size > 10_000)
      for (const [k, at] of this.#audited) if (now - at >= HOUR_MS) this.#audited.delete(k);
    this.#audited.set(key, now);
    this.#audit.record({
      actorUserId: null,
      action: 'gateway.egress.refused',
      targetType: 'dashboard',
      targetId: dashboardId,
      metadata: { datasourceId, host, address: address ?? null, class: cls ?? 'port' },
    });
  }
}
