// Upstream sharing (gateway spec §4.1): subscriptions with equal introspected intents (credentials
// applied) share one SSE or WebSocket connection; MQTT subscriptions share one connection per
// (broker URL, TLS options, username, password), at most N such connections per broker URL.
import { canonicalJson } from '../../dashboards/document.ts';
import { portOf } from '../egress.ts';
import { MqttUpstream } from './mqtt.ts';
import type { SharedUpstream, UpstreamContext, UpstreamSink } from './shared.ts';
import { SseUpstream } from './sse.ts';
import { WsUpstream } from './ws.ts';

export class BrokerLimitError extends Error {
  override name = 'BrokerLimitError';
  constructor() {
    super('Broker connection limit reached');
  }
}

export interface Attachment {
  /** The key of the upstream it shares: equal keys mean the same connection. */
  key: string;
  detach(): void;
}

export class UpstreamPool {
  readonly #upstreams = new Map<string, SharedUpstream>();

  readonly ctx: UpstreamContext;
  readonly maxConnectionsPerBroker: number;

  constructor(ctx: UpstreamContext, maxConnectionsPerBroker: number) {
    this.ctx = ctx;
    this.maxConnectionsPerBroker = maxConnectionsPerBroker;
  }

  /** The key of the upstream an applied intent uses. */
  static keyOf(intent: Record<string, unknown>): string {
    if (intent.protocol !== 'mqtt') return `${intent.protocol} ${canonicalJson(intent)}`;
    const { brokerUrl, tls, username, password } = intent;
    return `mqtt ${canonicalJson({ brokerUrl, tls: tls ?? null, username, password })}`;
  }

  /** False when an MQTT intent would need one broker connection more than allowed. */
  canAttach(intent: Record<string, unknown>): boolean {
    if (intent.protocol !== 'mqtt' || this.#upstreams.has(UpstreamPool.keyOf(intent))) return true;
    return this.#brokerConnections(new URL(String(intent.brokerUrl))) < this.maxConnectionsPerBroker;
  }

  #brokerConnections(url: URL): number {
    return [...this.#upstreams.values()].filter((u) => u instanceof MqttUpstream && u.url.href === url.href)
      .length;
  }

  attach(intent: Record<string, unknown>, sink: UpstreamSink): Attachment {
    const key = UpstreamPool.keyOf(intent);
    let upstream = this.#upstreams.get(key);
    if (!upstream) {
      upstream = this.#create(key, intent);
      this.#upstreams.set(key, upstream);
    }
    const shared = upstream;
    if (shared instanceof MqttUpstream) {
      const topic = String(intent.topic);
      shared.subscribe(topic, intent.qos === 1 ? 1 : 0, sink);
      return { key, detach: () => shared.unsubscribe(topic, sink) };
    }
    shared.add(sink);
    return { key, detach: () => shared.remove(sink) };
  }

  #create(key: string, intent: Record<string, unknown>): SharedUpstream {
    const gone = () => {
      if (this.#upstreams.get(key) === upstream) this.#upstreams.delete(key);
    };
    let upstream: SharedUpstream;
    if (intent.protocol === 'mqtt') {
      const url = new URL(String(intent.brokerUrl));
      if (this.#brokerConnections(url) >= this.maxConnectionsPerBroker) throw new BrokerLimitError();
      upstream = new MqttUpstream(this.ctx, url, portOf(url), gone, intent, {
        tls: (intent.tls as never) ?? null,
        username: typeof intent.username === 'string' ? intent.username : null,
        password: typeof intent.password === 'string' ? intent.password : null,
        keepaliveSeconds: Number(intent.keepaliveSeconds) || 60,
      });
    } else {
      const url = new URL(String(intent.url));
      const Kind = intent.protocol === 'sse' ? SseUpstream : WsUpstream;
      upstream = new Kind(this.ctx, url, portOf(url), gone, intent);
    }
    return upstream;
  }

  /** Open upstream connections by kind (benchmarks and tests count them). */
  counts(): { sse: number; websocket: number; mqtt: number } {
    const counts = { sse: 0, websocket: 0, mqtt: 0 };
    for (const upstream of this.#upstreams.values()) {
      if (upstream instanceof MqttUpstream) counts.mqtt += 1;
      else if (upstream instanceof SseUpstream) counts.sse += 1;
      else counts.websocket += 1;
    }
    return counts;
  }

  closeAll(): void {
    for (const upstream of [...this.#upstreams.values()]) upstream.close();
    this.#upstreams.clear();
  }
}
