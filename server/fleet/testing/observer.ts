// Test support: a shop-floor viewer of the fleet topics, an MQTT.js client on a real broker that
// keeps every message it hears with how it arrived (retained, QoS) and when.
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { FleetState } from '../state.ts';

export interface Heard {
  topic: string;
  /** The parsed state, or null for a payload that is not JSON. */
  state: FleetState | null;
  raw: string;
  retain: boolean;
  qos: number;
  receivedAt: number;
}

export interface Observer {
  client: MqttClient;
  heard: Heard[];
  /** The first message (already heard or still to come) that `match` accepts; rejects after `timeoutMs`. */
  next(match: (heard: Heard) => boolean, timeoutMs?: number): Promise<Heard>;
  end(): Promise<void>;
}

export async function observe(url: string, filter: string, options: IClientOptions = {}): Promise<Observer> {
  const client = mqtt.connect(url, {
    protocolVersion: 5,
    reconnectPeriod: 0,
    clientId: `viewer-${Math.random()}`,
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  const heard: Heard[] = [];
  const waiters = new Set<() => void>();
  client.on('message', (topic, payload, packet) => {
    const raw = payload.toString('utf8');
    let state: FleetState | null = null;
    try {
      state = JSON.parse(raw) as FleetState;
    } catch {}
    heard.push({ topic, state, raw, retain: packet.retain, qos: packet.qos, receivedAt: Date.now() });
    for (const waiter of [...waiters]) waiter();
  });
  await client.subscribeAsync(filter, { qos: 1 });
  return {
    client,
    heard,
    next: (match, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        let from = 0;
        const check = () => {
          for (; from < heard.length; from++) {
            const candidate = heard[from] as Heard;
            if (match(candidate)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(candidate);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching message within ${timeoutMs} ms; heard ${JSON.stringify(heard.map((h) => h.raw))}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    end: () => client.endAsync(),
  };
}
