// The realtime gateway's variables (gateway spec §5.2, §7.2, §10), read once by server/config/api.ts
// under the dashboard API's §18 rules (out-of-range integers clamped with a warning).
import { DEFAULT_EGRESS_PORTS, type EgressPolicy, egressPolicy } from './egress.ts';

export interface GatewaySettings {
  enabled: boolean;
  egress: EgressPolicy;
  fetchMaxBytes: number;
  fetchPerTokenPerMinute: number;
  maxSockets: number;
  maxSocketsPerIp: number;
  maxSocketsPerDashboard: number;
  maxSubscriptionsPerSocket: number;
  maxMessageBytes: number;
  mqttMaxConnectionsPerBroker: number;
  upstreamConnectTimeoutMs: number;
  connectIpPerMinute: number;
  publicSubscribeIpPerMinute: number;
  publicSubscribeSharePerMinute: number;
  revalidateIntervalSeconds: number;
}

/** How server/config reads a variable (config/env.ts): trimmed text or undefined, integers clamped, booleans strict. */
export interface VariableReader {
  value(name: string): string | undefined;
  int(name: string, fallback: number, min: number, max: number): number;
  bool(name: string): boolean;
}

const KIB = 1024;
const MIB = 1024 * KIB;

export function readGatewaySettings(read: VariableReader): GatewaySettings {
  return {
    enabled: read.value('GATEWAY_ENABLED') === undefined ? true : read.bool('GATEWAY_ENABLED'),
    egress: egressPolicy(
      read.value('GATEWAY_EGRESS_ALLOW'),
      read.value('GATEWAY_EGRESS_DENY'),
      read.value('GATEWAY_EGRESS_PORTS') ?? DEFAULT_EGRESS_PORTS,
    ),
    fetchMaxBytes: read.int('GATEWAY_FETCH_MAX_BYTES', 5 * MIB, KIB, 50 * MIB),
    fetchPerTokenPerMinute: read.int('GATEWAY_FETCH_PER_TOKEN_PER_MIN', 120, 1, 10_000),
    maxSockets: read.int('GATEWAY_MAX_SOCKETS', 2000, 1, 100_000),
    maxSocketsPerIp: read.int('GATEWAY_MAX_SOCKETS_PER_IP', 25, 1, 1000),
    maxSocketsPerDashboard: read.int('GATEWAY_MAX_SOCKETS_PER_DASHBOARD', 1000, 1, 100_000),
    maxSubscriptionsPerSocket: read.int('GATEWAY_MAX_SUBSCRIPTIONS_PER_SOCKET', 50, 1, 500),
    maxMessageBytes: read.int('GATEWAY_MAX_MESSAGE_BYTES', MIB, 64 * KIB, 16 * MIB),
    mqttMaxConnectionsPerBroker: read.int('GATEWAY_MQTT_MAX_CONNECTIONS_PER_BROKER', 10, 1, 100),
    upstreamConnectTimeoutMs: read.int('GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS', 10_000, 1000, 60_000),
    connectIpPerMinute: read.int('GATEWAY_REALTIME_CONNECT_IP_PER_MIN', 60, 1, 10_000),
    publicSubscribeIpPerMinute: read.int('GATEWAY_REALTIME_PUBLIC_SUBSCRIBE_IP_PER_MIN', 60, 1, 10_000),
    publicSubscribeSharePerMinute: read.int(
      'GATEWAY_REALTIME_PUBLIC_SUBSCRIBE_SHARE_PER_MIN',
      120,
      1,
      10_000,
    ),
    revalidateIntervalSeconds: read.int('GATEWAY_REVALIDATE_INTERVAL_SECONDS', 300, 60, 3600),
  };
}
