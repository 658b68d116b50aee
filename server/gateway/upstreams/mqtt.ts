// MQTT upstreams (gateway spec §4.1, §4.3): one broker connection per (URL, TLS options, username,
// password), each topic filter subscribed once at the highest QoS asked for, each message handed to
// every subscription whose filter matches. MQTT.js's own reconnect is off: every attempt must
// resolve and pass the egress policy anew (§4.2), so the shared backoff drives it.
import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { hasWildcard, KEPT_TOPICS } from '../../../engine/dashboard/topic-values.ts';
import { filterCovers } from '../../profiles/topics.ts';
import type { ResolvedAddress } from '../egress.ts';
import { tlsFailureCode } from './connect.ts';
import { UpstreamMessage } from './payload.ts';
import { SharedUpstream, type UpstreamContext, type UpstreamSink } from './shared.ts';

export const MQTT_MAX_PAYLOAD_BYTES = 256 * 1024;
export const MQTT_UNUSED_CLOSE_MS = 60_000;

const REFUSALS: Record<number, string> = { 4: 'Bad username or password', 5: 'Not authorized' };

export interface BrokerOptions {
  tls: { rejectUnauthorized?: boolean; servername?: string; ca?: string } | null;
  username: string | null;
  password: string | null;
  keepaliveSeconds: number;
}

interface Filter {
  /** QoS subscribed at the broker: the highest any subscription asked for, never lowered. */
  qos: 0 | 1;
  sinks: Map<UpstreamSink, 0 | 1>;
  /** The last message of each topic the filter matched (one topic unless it has wildcards). */
  last: Map<string, UpstreamMessage>;
}

export class MqttUpstream extends SharedUpstream {
  readonly filters = new Map<string, Filter>();
  #client: MqttClient | undefined;
  #unused: NodeJS.Timeout | undefined;

  readonly options: BrokerOptions;

  constructor(
    ctx: UpstreamContext,
    url: URL,
    port: number,
    onGone: () => void,
    intent: Record<string, unknown>,
    options: BrokerOptions,
  ) {
    super(ctx, url, port, onGone, intent);
    this.options = options;
  }

  /** Joins `sink` to `topic`; replays the filter's kept messages when the connection is up. */
  subscribe(topic: string, qos: 0 | 1, sink: UpstreamSink): void {
    clearTimeout(this.#unused);
    let filter = this.filters.get(topic);
    if (!filter) {
      filter = { qos, sinks: new Map(), last: new Map() };
      this.filters.set(topic, filter);
      this.#subscribeAtBroker(topic, filter);
    } else if (qos > filter.qos) {
      filter.qos = qos;
      this.#subscribeAtBroker(topic, filter);
    }
    filter.sinks.set(sink, qos);
    this.add(sink);
    if (this.state === 'connected') for (const message of filter.last.values()) sink.data(message, true);
  }

  unsubscribe(topic: string, sink: UpstreamSink): void {
    const filter = this.filters.get(topic);
    if (!filter?.sinks.delete(sink)) return;
    this.sinks.delete(sink);
    if (filter.sinks.size === 0) {
      this.filters.delete(topic);
      if (this.state === 'connected') this.#client?.unsubscribe(topic);
    }
    if (this.sinks.size === 0) {
      // Kept a while: a dashboard reloading comes straight back to the same broker.
      this.#unused = setTimeout(() => this.close(), MQTT_UNUSED_CLOSE_MS);
      this.#unused.unref();
    }
  }

  /** Subscriptions are added through `subscribe`; the base class's `remove` is not used. */
  override remove(sink: UpstreamSink): void {
    for (const [topic, filter] of this.filters) if (filter.sinks.has(sink)) this.unsubscribe(topic, sink);
  }

  #subscribeAtBroker(topic: string, filter: Filter): void {
    const client = this.#client;
    if (!client || this.state !== 'connected') return;
    client.subscribe(topic, { qos: filter.qos }, (error, granted) => {
      if (this.#client !== client || this.filters.get(topic) !== filter) return;
      if (error || granted?.some((grant) => grant.qos === 128)) this.#refuseFilter(topic, filter);
    });
  }

  #refuseFilter(topic: string, filter: Filter): void {
    this.filters.delete(topic);
    for (const sink of filter.sinks.keys()) {
      this.sinks.delete(sink);
      sink.fail('upstream_failed', `MQTT broker refused the subscription to ${topic}`);
    }
  }

  protected connect(address: ResolvedAddress): void {
    const secure = this.url.protocol === 'mqtts:';
    const tls = this.options.tls ?? {};
    const options: IClientOptions = {
      protocol: secure ? 'mqtts' : 'mqtt',
      host: address.address,
      hostname: address.address,
      port: this.port,
      protocolVersion: 4,
      clean: true,
      clientId: `towpath-${randomBytes(8).toString('hex')}`,
      keepalive: this.options.keepaliveSeconds,
      reconnectPeriod: 0,
      connectTimeout: this.ctx.connectTimeoutMs,
      ...(this.options.username !== null ? { username: this.options.username } : {}),
      ...(this.options.password !== null ? { password: this.options.password } : {}),
      ...(secure
        ? {
            servername: tls.servername ?? this.url.hostname,
            rejectUnauthorized: tls.rejectUnauthorized !== false,
            ...(tls.ca ? { ca: tls.ca } : {}),
          }
        : {}),
    };
    const client = mqtt.connect(options);
    this.#client = client;
    client.on('connect', () => {
      if (this.#client !== client) return;
      this.connected();
      for (const [topic, filter] of this.filters) this.#subscribeAtBroker(topic, filter);
    });
    client.on('message', (topic, payload) => {
      if (this.#client !== client) return;
      if (payload.length > MQTT_MAX_PAYLOAD_BYTES) {
        for (const [filterTopic, filter] of this.filters)
          if (filterCovers(filterTopic, topic))
            for (const sink of filter.sinks.keys())
              sink.problem(
                'MESSAGE_TOO_LARGE',
                `Upstream message of ${payload.length} bytes exceeds the limit of ${MQTT_MAX_PAYLOAD_BYTES} bytes`,
              );
        return;
      }
      const message = new UpstreamMessage(
        payload.toString('utf8'),
        payload.length,
        new Date().toISOString(),
        {
          topic,
        },
      );
      // On a wildcard filter a zero-length payload deletes that topic, as it deletes a retained
      // message at the broker: forgotten here and announced to the subscribers as `removed`.
      let removal: UpstreamMessage | undefined;
      for (const [filterTopic, filter] of this.filters) {
        if (!filterCovers(filterTopic, topic)) continue;
        filter.last.delete(topic);
        if (payload.length === 0 && hasWildcard(filterTopic)) {
          removal ??= new UpstreamMessage('', 0, message.at, { topic, removed: true });
          for (const sink of filter.sinks.keys()) sink.data(removal, false);
          continue;
        }
        filter.last.set(topic, message);
        if (filter.last.size > KEPT_TOPICS) filter.last.delete(filter.last.keys().next().value as string);
        for (const sink of filter.sinks.keys()) sink.data(message, false);
      }
    });
    client.on('error', (error: Error & { code?: unknown }) => {
      if (this.#client !== client) return;
      const refused = typeof error.code === 'number' ? REFUSALS[error.code] : undefined;
      const tlsCode = tlsFailureCode(error);
      if (refused) this.failAll('upstream_failed', `MQTT broker refused the connection: ${refused}`);
      else if (tlsCode) this.failAll('upstream_failed', `Upstream TLS handshake failed: ${tlsCode}`);
      else this.#lost(client, 'MQTT connection lost');
    });
    client.on('close', () => this.#lost(client, 'MQTT connection lost'));
  }

  #lost(client: MqttClient, message: string): void {
    if (this.#client !== client || this.closed) return;
    this.retry(message);
  }

  protected teardown(): void {
    clearTimeout(this.#unused);
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      client.end(true);
    }
  }
}
