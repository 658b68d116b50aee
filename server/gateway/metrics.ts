// `GatewayRuntimeMetrics` of gateway spec §9: in-memory counters from process start, served as
// `adminRuntimeMetrics.gateway`.
import type { Now } from '../clock.ts';

export interface GatewayRuntimeMetrics {
  startedAt: string;
  collectedAt: string;
  uptimeSeconds: number;
  httpRequestCount: number;
  httpErrorCount: number;
  httpAvgLatencyMs: number;
  realtimeConnectionAttempts: number;
  realtimeConnectionsAccepted: number;
  realtimeConnectionsRejected: number;
  realtimeActiveConnections: number;
  realtimeMessagesIn: number;
  realtimeMessagesOut: number;
  realtimeErrorCount: number;
}

export class GatewayMetrics {
  readonly #clock: Now;
  readonly #startedAt: number;
  httpRequestCount = 0;
  httpErrorCount = 0;
  #httpLatencyTotal = 0;
  realtimeConnectionAttempts = 0;
  realtimeConnectionsAccepted = 0;
  realtimeConnectionsRejected = 0;
  realtimeActiveConnections = 0;
  realtimeMessagesIn = 0;
  realtimeMessagesOut = 0;
  realtimeErrorCount = 0;

  constructor(clock: Now) {
    this.#clock = clock;
    this.#startedAt = clock();
  }

  recordFetch(status: number, latencyMs: number): void {
    this.httpRequestCount += 1;
    if (status >= 400) this.httpErrorCount += 1;
    this.#httpLatencyTotal += latencyMs;
  }

  snapshot(): GatewayRuntimeMetrics {
    const now = this.#clock();
    const avg = this.httpRequestCount === 0 ? 0 : this.#httpLatencyTotal / this.httpRequestCount;
    return {
      startedAt: new Date(this.#startedAt).toISOString(),
      collectedAt: new Date(now).toISOString(),
      uptimeSeconds: Math.max(0, Math.floor((now - this.#startedAt) / 1000)),
      httpRequestCount: this.httpRequestCount,
      httpErrorCount: this.httpErrorCount,
      httpAvgLatencyMs: Math.round(avg * 1000) / 1000,
      realtimeConnectionAttempts: this.realtimeConnectionAttempts,
      realtimeConnectionsAccepted: this.realtimeConnectionsAccepted,
      realtimeConnectionsRejected: this.realtimeConnectionsRejected,
      realtimeActiveConnections: this.realtimeActiveConnections,
      realtimeMessagesIn: this.realtimeMessagesIn,
      realtimeMessagesOut: this.realtimeMessagesOut,
      realtimeErrorCount: this.realtimeErrorCount,
    };
  }
}
