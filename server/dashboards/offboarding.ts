// A deleted user's dashboards (spec §6.6): the successor takes over every dashboard the user owns
// (shared ones become private, their share tokens revoked) and the user's ACL entries go. Two halves,
// because the work belongs inside the deletion's transaction and the audit and announcements after
// its commit.
import type { AuditEntry } from '../auth/audit-log.ts';
import { iso } from '../auth/tokens.ts';
import type { Now } from '../clock.ts';
import type { AclRow, DashboardRow } from '../db/repositories/dashboards.ts';
import type { Store } from '../db/store.ts';
import type { ChangeBus } from './bus.ts';

export interface Offboarding {
  userId: string;
  reassigned: { dashboard: DashboardRow; toUserId: string }[];
  aclRevoked: AclRow[];
}

/**
 * Inside the caller's transaction (the user's deletion): hands `userId`'s dashboards to
 * `successorId` and removes the user's ACL entries. Returns what `afterOffboarding` audits and
 * announces once the transaction has committed.
 */
export function offboardInTransaction(
  deps: { store: Store; clock: Now },
  userId: string,
  successorId: string,
): Offboarding {
  const { dashboards } = deps.store;
  const now = iso(deps.clock());
  const reassigned: Offboarding['reassigned'] = [];
  for (const dashboard of dashboards.ownedBy(userId)) {
    dashboards.deleteAcl(dashboard.id, successorId);
    if (dashboard.visibility === 'private') {
      dashboards.update(dashboard.id, { ownerId: successorId, updatedAt: now });
    } else {
      const version = dashboard.shareTokenVersion + 1;
      dashboards.update(dashboard.id, {
        ownerId: successorId,
        visibility: 'private',
        shareToken: null,
        shareTokenVersion: version,
        updatedAt: now,
      });
      dashboards.addRevocationEvent(dashboard.id, version, 'owner_offboarded', now);
    }
    reassigned.push({ dashboard, toUserId: successorId });
  }
  // Deleted here rather than by the foreign key's cascade, so that each can be audited.
  const aclRevoked = dashboards.aclOf(userId);
  for (const entry of aclRevoked) dashboards.deleteAcl(entry.dashboardId, userId);
  return { userId, reassigned, aclRevoked };
}

/** After the commit: every audit record first, then the changes for subscribers and the gateway. */
export function afterOffboarding(
  deps: { audit: { record(entry: AuditEntry): void }; bus: ChangeBus },
  actorUserId: string,
  result: Offboarding,
): void {
  const { userId } = result;
  const entry = (action: string, targetId: string, metadata: Record<string, unknown>): AuditEntry => ({
    actorUserId,
    action,
    targetType: 'dashboard',
    targetId,
    metadata,
  });
  const audit: AuditEntry[] = [
    ...result.reassigned.map(({ dashboard, toUserId }) =>
      entry('dashboard.ownership.reassigned_for_user_offboarding', dashboard.id, {
        fromUserId: userId,
        toUserId,
        previousVisibility: dashboard.visibility,
        forcedPrivate: true,
      }),
    ),
    ...result.aclRevoked.map(({ dashboardId, accessLevel }) =>
      entry('dashboard.acl.revoked_for_user_offboarding', dashboardId, { userId, accessLevel }),
    ),
  ];
  for (const record of audit) deps.audit.record(record);
  for (const { dashboard } of result.reassigned)
    deps.bus.publish({
      kind: 'dashboard',
      dashboardId: dashboard.id,
      change: 'owner',
      ...(dashboard.visibility !== 'private' ? { reason: 'owner_offboarded' as const } : {}),
    });
  for (const { dashboardId } of result.aclRevoked)
    deps.bus.publish({ kind: 'dashboard', dashboardId, change: 'acl' });
  deps.bus.publish({ kind: 'user', userId, change: 'deleted' });
}
