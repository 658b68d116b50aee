import { requireAdmin } from '../context.ts';
import { forbidden } from '../errors.ts';
import type { GatewayRuntimeMetrics, Resolvers } from '../generated/resolvers.ts';

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

  "The realtime gateway's counters (gateway spec §9)."
  type GatewayRuntimeMetrics {
    startedAt: String!
    collectedAt: String!
    uptimeSeconds: Int!
    httpRequestCount: Int!
    httpErrorCount: Int!
    httpAvgLatencyMs: Float!
    realtimeConnectionAttempts: Int!
    realtimeConnectionsAccepted: Int!
    realtimeConnectionsRejected: Int!
    realtimeActiveConnections: Int!
    realtimeMessagesIn: Int!
    realtimeMessagesOut: Int!
    realtimeErrorCount: Int!
  }

  "This workstation's fleet publisher on the shop's MQTT broker (read-only, retained state)."
  type FleetRuntimeStatus {
    "Connected to the broker now."
    connected: Boolean!
    "FLEET_BROKER_URL as configured; it never carries credentials."
    broker: String!
    "The retained state topic, <prefix>/<workstationId>/state."
    topic: String!
    "When the broker last took this workstation's state (ISO 8601 UTC); null before the first."
    lastPublishAt: String
    "The latest connection, TLS or authorisation problem; null once connected again."
    lastError: String
    "Another process is online under this workstation id, so this one stopped publishing."
    conflict: Boolean!
  }

  "This workstation's read-only OPC UA server."
  type OpcuaRuntimeStatus {
    "Listening for OPC UA clients now."
    listening: Boolean!
    "The endpoint clients connect to (opc.tcp://host:port); null until it listens."
    endpoint: String
    "Sessions open now."
    clients: Int!
    "Why it is not listening, or its latest problem."
    lastError: String
    "When it started listening (ISO 8601 UTC), or null."
    startedAt: String
  }

  type AdminRuntimeMetrics {
    "Query time (ISO 8601 UTC)."
    collectedAt: String!
    api: ApiRuntimeMetrics!
    "The realtime gateway's counters; null while no gateway runs or it cannot be reached."
    gateway: GatewayRuntimeMetrics
    "The fleet publisher; null unless FLEET_BROKER_URL is set."
    fleet: FleetRuntimeStatus
    "The OPC UA server; null unless OPCUA_PORT is set."
    opcua: OpcuaRuntimeStatus
  }

  extend type Query {
    "Admins, or service accounts with OPS_READ."
    adminRuntimeMetrics: AdminRuntimeMetrics!
  }
`;

export const resolvers: Resolvers = {
  Query: {
    adminRuntimeMetrics: (_, __, context) => {
      const { principal } = context;
      if (principal.kind === 'service') {
        if (!principal.scopes.includes('ops:read')) throw forbidden('Service account lacks scope OPS_READ');
      } else {
        requireAdmin(context);
      }
      const api = context.services.metrics.snapshot();
      return { collectedAt: api.collectedAt, api };
    },
  },
  // Fetched only when selected: reading the gateway can take up to its timeout.
  AdminRuntimeMetrics: {
    gateway: async (_, __, context) => gatewayShape(await context.services.gatewayMetrics()),
    fleet: (_, __, context) => context.services.shopLinks.fleet(),
    opcua: (_, __, context) => {
      const status = context.services.shopLinks.opcua();
      return status && { ...status, listening: status.endpoint !== null };
    },
  },
};

const GATEWAY_STRINGS = ['startedAt', 'collectedAt'];
const GATEWAY_NUMBERS = [
  'uptimeSeconds',
  'httpRequestCount',
  'httpErrorCount',
  'httpAvgLatencyMs',
  'realtimeConnectionAttempts',
  'realtimeConnectionsAccepted',
  'realtimeConnectionsRejected',
  'realtimeActiveConnections',
  'realtimeMessagesIn',
  'realtimeMessagesOut',
  'realtimeErrorCount',
];

/** The gateway's counters when they have the §9 shape; anything else counts as unreachable (null). */
function gatewayShape(value: Record<string, unknown> | null): GatewayRuntimeMetrics | null {
  if (!value) return null;
  const complete =
    GATEWAY_STRINGS.every((key) => typeof value[key] === 'string') &&
    GATEWAY_NUMBERS.every((key) => typeof value[key] === 'number' && Number.isFinite(value[key]));
  // Checked field by field just above.
  return complete ? (value as GatewayRuntimeMetrics) : null;
}
