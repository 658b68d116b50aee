import { type RequestContext, requireAdmin } from '../context.ts';
import { forbidden } from '../errors.ts';

export const typeDefs = /* GraphQL */ `
  "Counters of this API process since it started (§15)."
  type ApiRuntimeMetrics {
    startedAt: String!
    collectedAt: String!
    uptimeSeconds: Int!
    requestCount: Int!
    errorCount: Int!
    avgLatencyMs: Float!
    p95LatencyMs: Float!
    maxLatencyMs: Float!
    authFailureCount: Int!
    datasourceMintSuccessCount: Int!
    datasourceMintFailureCount: Int!
    auditWriteFailureCount: Int!
  }

  type RuntimeMetrics {
    api: ApiRuntimeMetrics!
    "The realtime gateway's counters; null while no gateway runs or it cannot be reached."
    gateway: Object
  }

  extend type Query {
    "Admins, or service accounts with OPS_READ."
    adminRuntimeMetrics: RuntimeMetrics!
  }
`;

export const resolvers = {
  Query: {
    adminRuntimeMetrics: (_: unknown, __: unknown, context: RequestContext) => {
      const { principal } = context;
      if (principal.kind === 'service') {
        if (!principal.scopes.includes('ops:read')) throw forbidden('Service account lacks scope OPS_READ');
      } else {
        requireAdmin(context);
      }
      return { api: context.services.metrics.snapshot() };
    },
  },
  // Fetched only when selected: reading the gateway can take up to its timeout.
  RuntimeMetrics: {
    gateway: (_: unknown, __: unknown, context: RequestContext) => context.services.gatewayMetrics(),
  },
};
