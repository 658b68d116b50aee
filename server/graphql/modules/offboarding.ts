import { iso } from '../../auth/tokens.ts';
import type { AclRow, DashboardRow } from '../../db/repositories/dashboards.ts';
import type { ApiServices } from '../context.ts';

export interface Offboarding {
  reassigned: { dashboard: DashboardRow; toUserId: string }[];
  aclRevoked: AclRow[];
}

/**
 * §6.6, inside the caller's transaction: the successor takes over every dashboard the user owns
 * (shared ones become private and their share tokens are revoked), and the user's ACL entries go
 * (here, not by the foreign key's cascade, so that each can be audited). When the caller then deletes
 * the user, grant and invite references fall to null and reset tokens go through the foreign keys.
 */
export function offboardInTransaction(
  services: ApiServices,
  userId: string,
  successorId: string,
): Offboarding {
  const { store } = services;
  const now = iso(services.clock());
  const reassigned: Offboarding['reassigned'] = [];
  for (const dashboard of store.dashboards.ownedBy(userId)) {
    store.dashboards.deleteAcl(dashboard.id, successorId);
    if (dashboard.visibility === 'private') {
      store.dashboards.update(dashboard.id, { ownerId: successorId, updatedAt: now });
    } else {
      const version = dashboard.shareTokenVersion + 1;
      store.dashboards.update(dashboard.id, {
        ownerId: successorId,
        visibility: 'private',
        shareToken: null,
        shareTokenVersion: version,
        updatedAt: now,
      });
      store.dashboards.addRevocationEvent(dashboard.id, version, 'owner_offboarded', now);
    }
    reassigned.push({ dashboard, toUserId: successorId });
  }
  const aclRevoked = store.dashboards.aclOf(userId);
  for (const entry of aclRevoked) store.dashboards.deleteAcl(entry.dashboardId, userId);
  return { reassigned, aclRevoked };
}

/** The audit records of an offboarding, written after the commit. */
export function auditOffboarding(
  services: ApiServices,
  actorUserId: string,
  userId: string,
  result: Offboarding,
): void {
  for (const { dashboard, toUserId } of result.reassigned) {
    services.audit.record({
      actorUserId,
      action: 'dashboard.ownership.reassigned_for_user_offboarding',
      targetType: 'dashboard',
      targetId: dashboard.id,
      metadata: {
        fromUserId: userId,
        toUserId,
        previousVisibility: dashboard.visibility,
        forcedPrivate: true,
      },
    });
  }
  for (const entry of result.aclRevoked) {
    services.audit.record({
      actorUserId,
      action: 'dashboard.acl.revoked_for_user_offboarding',
      targetType: 'dashboard',
      targetId: entry.dashboardId,
      metadata: { userId, accessLevel: entry.accessLevel },
    });
  }
}
