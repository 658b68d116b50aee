// The audit trail over GraphQL (§14): the SDL and a thin resolver; the read is in
// server/accounts/audit-events.ts.
import { listAuditEvents } from '../../accounts/audit-events.ts';
import type { AuditRow } from '../../db/repositories/audit.ts';
import { requireAdmin } from '../context.ts';
import type { AuditEventRecord, Resolvers } from '../generated/resolvers.ts';

export const typeDefs = /* GraphQL */ `
  "An immutable audit record (§14)."
  type AuditEventRecord {
    "Decimal string of the record's integer id."
    _id: ID!
    "Null for anonymous callers, the system and service accounts."
    actorUserId: ID
    action: String!
    targetType: String!
    targetId: ID
    metadata: Object!
    createdAt: String!
    "Equals createdAt: records are immutable."
    updatedAt: String!
  }

  extend type Query {
    "Admin only; newest first. limit defaults to 100 (1–500); actionPrefix is a literal prefix."
    adminAuditEvents(limit: Int, actionPrefix: String): [AuditEventRecord!]!
  }
`;

function toAuditView(row: AuditRow): AuditEventRecord {
  return {
    _id: String(row.id),
    actorUserId: row.actorUserId,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    // Written only from an audit entry's metadata object.
    metadata: row.metadata as Record<string, unknown>,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export const resolvers: Resolvers = {
  Query: {
    adminAuditEvents: (_, args, context) => {
      requireAdmin(context);
      return listAuditEvents(context.services, args).map(toAuditView);
    },
  },
};
