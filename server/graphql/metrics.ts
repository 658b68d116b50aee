import type { Now } from '../clock.ts';
import type { OpcuaStatus } from '../fleet/opcua/service.ts';
import type { FleetRuntime } from '../fleet/publisher.ts';
import type { Logger } from '../log.ts';

const P95_SAMPLES = 1024;

export interface ApiRuntimeMetrics {
  startedAt: string;
  collectedAt: string;
  uptimeSeconds: number;
  requestCount: number;
  errorCount: number;
  avgLatencyMs: number;
  p95LatencyMs: number;
  maxLatencyMs: number;
  authFailureCount: number;
  datasourceMintSuccessCount: number;
  datasourceMintFailureCount: number;
  auditWriteFailureCount: number;
}

/** In-memory counters of §15 from process start, over the GraphQL and gateway paths only. */
export class RuntimeMetrics {
  readonly #clock: Now;
  readonly #startedAt: number;
  requestCount = 0;
  errorCount = 0;
  authFailureCount = 0;
  datasourceMintSuccessCount = 0;
  datasourceMintFailureCount = 0;
  auditWriteFailureCount = 0;
  #latencyTotal = 0;
  #latencySamples = 0;
  #maxLatency = 0;
  // A ring of the last 1024 latencies for the p95.
  readonly #recent: number[] = [];
  #next = 0;

  constructor(clock: Now) {
    this.#clock = clock;
    this.#startedAt = clock();
  }

  /** One finished request; `latencyMs` undefined for streams (counted, not timed). */
  recordRequest(failed: boolean, latencyMs?: number): void {
    this.requestCount += 1;
    if (failed) this.errorCount += 1;
    if (latencyMs === undefined) return;
    this.#latencyTotal += latencyMs;
    this.#latencySamples += 1;
    this.#maxLatency = Math.max(this.#maxLatency, latencyMs);
    if (this.#recent.length < P95_SAMPLES) this.#recent.push(latencyMs);
    else this.#recent[this.#next] = latencyMs;
    this.#next = (this.#next + 1) % P95_SAMPLES;
  }

  snapshot(): ApiRuntimeMetrics {
    const now = this.#clock();
    const sorted = [...this.#recent].sort((a, b) => a - b);
    const rank = Math.ceil(0.95 * sorted.length) - 1;
    return {
      startedAt: new Date(this.#startedAt).toISOString(),
      collectedAt: new Date(now).toISOString(),
      uptimeSeconds: Math.max(0, Math.floor((now - this.#startedAt) / 1000)),
      requestCount: this.requestCount,
      errorCount: this.errorCount,
      avgLatencyMs: this.#latencySamples === 0 ? 0 : round(this.#latencyTotal / this.#latencySamples),
      p95LatencyMs: sorted.length === 0 ? 0 : round(sorted[rank] ?? 0),
      maxLatencyMs: round(this.#maxLatency),
      authFailureCount: this.authFailureCount,
      datasourceMintSuccessCount: this.datasourceMintSuccessCount,
      datasourceMintFailureCount: this.datasourceMintFailureCount,
      auditWriteFailureCount: this.auditWriteFailureCount,
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * How this workstation reaches the shop beyond its own doors, each null while switched off
 * (FLEET_BROKER_URL, OPCUA_PORT unset); read at query time, for they change with the network.
 */
export interface ShopLinks {
  fleet(): FleetRuntime | null;
  opcua(): OpcuaStatus | null;
}

export const NO_SHOP_LINKS: ShopLinks = { fleet: () => null, opcua: () => null };

/** The realtime gateway's counters, or null when there is no gateway or it cannot be read. */
export type GatewayMetricsSource = () => Promise<Record<string, unknown> | null>;

export const NO_GATEWAY: GatewayMetricsSource = async () => null;

export const GATEWAY_METRICS_TIMEOUT_MS = 2500;

/**
 * §15: with `GATEWAY_RUNTIME_METRICS_URL` set, the gateway's counters are fetched at query time with
 * the gateway service token. Any failure (network, status, timeout, not a JSON object) reads as
 * null: the API's own metrics must stay readable while the gateway is down.
 */
export function gatewayMetricsFromUrl(
  url: string | null,
  serviceToken: string,
  logger: Logger,
): GatewayMetricsSource {
  if (url === null) return NO_GATEWAY;
  return async () => {
    try {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${serviceToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(GATEWAY_METRICS_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) {
        await response.body?.cancel();
        logger.warn({ status: response.status }, 'gateway runtime metrics answered with an error');
        return null;
      }
      const body: unknown = await response.json();
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        logger.warn('gateway runtime metrics are not a JSON object');
        return null;
      }
      return body as Record<string, unknown>;
    } catch (error) {
      logger.warn({ err: error }, 'gateway runtime metrics could not be read');
      return null;
    }
  };
}
