// Publishes this workstation's state to the shop's broker: one retained message on
// `<prefix>/<id>/state`, a retained last will on the same topic, the current state on every
// connect (never a backlog), changes at most once per interval except job and connection
// transitions. It subscribes to its own state topic only, to notice a second process using the same
// id; no message it receives can reach the machine, for it is given nothing but the feed to read.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { VERSION } from '../../bridge/version.ts';
import { invalid } from '../config/env.ts';
import type { FleetConfig } from '../config/fleet.ts';
import type { MachineFeed, MachineValue } from '../gateway/realtime/machine-feed.ts';
import type { Logger } from '../log.ts';
import {
  type FleetIdentity,
  type FleetState,
  fleetStatus,
  offlineState,
  onlineState,
  otherInstance,
} from './state.ts';

/** What the publisher reads: the `machine` datasource's value and its changes, nothing else. */
export type MachineValueSource = Pick<MachineFeed, 'value' | 'onChange'>;

export interface FleetRuntime {
  connected: boolean;
  broker: string;
  topic: string;
  lastPublishAt: string | null;
  lastError: string | null;
  conflict: boolean;
}

export interface FleetPublisherOptions {
  config: FleetConfig;
  feed: MachineValueSource;
  logger: Logger;
  clock?: () => number;
}

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** How long a clean stop waits for the broker to take the `shutdown` state. */
const STOP_WAIT_MS = 1000;
const PUBLISH_PROPERTIES = { contentType: 'application/json', payloadFormatIndicator: true } as const;

export class FleetPublisher {
  readonly topic: string;
  readonly identity: FleetIdentity;
  readonly #config: FleetConfig;
  readonly #feed: MachineValueSource;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #ca: Buffer | undefined;
  #client: MqttClient | undefined;
  #unsubscribeFeed: (() => void) | undefined;
  #pending: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #attempts = 0;
  #lastSentAt = 0;
  #lastSent: { status: string; jobState: string; connection: string } | null = null;
  #stopped = false;
  #conflict = false;
  #wasConnected = false;
  #denied = false;
  #lastPublishAt: string | null = null;
  #lastError: string | null = null;

  /** Reads the CA file now, so a missing one stops start-up rather than every connect. */
  constructor(options: FleetPublisherOptions) {
    this.#config = options.config;
    this.#feed = options.feed;
    this.#logger = options.logger.child({ component: 'fleet' });
    this.#clock = options.clock ?? Date.now;
    const instance = randomBytes(8).toString('hex');
    this.identity = {
      workstationId: options.config.workstationId,
      name: options.config.name,
      instance,
      since: new Date(this.#clock()).toISOString(),
      towpathVersion: VERSION,
      lanUrl: options.config.lanUrl,
    };
    this.topic = `${options.config.topicPrefix}/${options.config.workstationId}/state`;
    this.#ca = options.config.caFile ? readCa(options.config.caFile) : undefined;
  }

  get clientId(): string {
    return `towpath-${this.identity.workstationId}-${this.identity.instance.slice(0, 8)}`;
  }

  runtime(): FleetRuntime {
    return {
      connected: this.#client?.connected === true,
      broker: this.#config.brokerUrl,
      topic: this.topic,
      lastPublishAt: this.#lastPublishAt,
      lastError: this.#lastError,
      conflict: this.#conflict,
    };
  }

  start(): void {
    if (this.#client || this.#stopped) return;
    this.#unsubscribeFeed = this.#feed.onChange((value) => this.#changed(value));
    const client = mqtt.connect(this.#clientOptions());
    this.#client = client;
    client.on('connect', () => this.#connected(client));
    client.on('message', (_topic, payload, packet) => this.#received(payload, packet.retain));
    client.on('error', (error: Error & { code?: unknown }) => this.#failed(error));
    client.on('close', () => this.#closed(client));
    // MQTT 5: the broker says why it ends the session (for instance a second client with our id).
    client.on('disconnect', (packet) =>
      this.#noteError(`broker disconnected: reason ${packet.reasonCode ?? 0}`),
    );
    this.#logger.info(
      { event: 'fleet.starting', broker: this.#config.brokerUrl, topic: this.topic, clientId: this.clientId },
      'fleet.starting',
    );
  }

  /** A clean stop: the `shutdown` state, then DISCONNECT (so the broker keeps the will to itself). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#unsubscribeFeed?.();
    clearTimeout(this.#pending);
    clearTimeout(this.#retry);
    const client = this.#client;
    if (!client) return;
    if (client.connected && !this.#conflict) {
      await withinTime(
        this.#send(client, offlineState(this.identity, 'shutdown', new Date(this.#clock()))),
        STOP_WAIT_MS,
      );
    }
    await this.#disconnect(client);
  }

  #clientOptions(): IClientOptions {
    const url = new URL(this.#config.brokerUrl);
    const secure = url.protocol === 'mqtts:';
    return {
      protocol: secure ? 'mqtts' : 'mqtt',
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (secure ? 8883 : 1883) : Number(url.port),
      protocolVersion: 5,
      clientId: this.clientId,
      clean: true,
      keepalive: this.#config.keepaliveSeconds,
      // Reconnects are this class's own, with a growing delay; a state missed while away is never
      // queued, for on connect the current one is sent.
      reconnectPeriod: 0,
      queueQoSZero: false,
      username: this.#config.username,
      ...(this.#config.password !== null ? { password: this.#config.password } : {}),
      will: this.#will(),
      ...(secure
        ? {
            rejectUnauthorized: true,
            servername: this.#config.tlsServername ?? url.hostname,
            ...(this.#ca ? { ca: this.#ca } : {}),
          }
        : {}),
    };
  }

  #will(): NonNullable<IClientOptions['will']> {
    return {
      topic: this.topic,
      payload: Buffer.from(
        JSON.stringify(offlineState(this.identity, 'connection lost', new Date(this.#clock()))),
      ),
      qos: 1,
      retain: true,
      properties: PUBLISH_PROPERTIES,
    };
  }

  #connected(client: MqttClient): void {
    if (this.#stopped || this.#client !== client) return;
    this.#attempts = 0;
    this.#lastError = null;
    this.#wasConnected = true;
    this.#logger.info({ event: 'fleet.connected', broker: this.#config.brokerUrl }, 'fleet.connected');
    // Subscribed before the birth goes out, so what the broker retained is heard first; `nl` keeps
    // our own publishes from coming back.
    client.subscribe(this.topic, { qos: 1, nl: true }, (error) => {
      if (error) this.#noteError(`subscribe refused: ${error.message}`);
    });
    this.#publishNow();
  }

  #received(payload: Buffer, retained: boolean): void {
    if (this.#stopped || this.#conflict) return;
    const other = otherInstance(this.identity, payload);
    if (other?.startedFirst) {
      this.#conflict = true;
      this.#lastError = 'another process publishes as this workstation';
      this.#logger.error(
        { event: 'fleet.conflict', workstationId: this.identity.workstationId, topic: this.topic },
        `fleet.conflict: another Towpath is online as "${this.identity.workstationId}"; this one stops publishing`,
      );
      void this.stop();
      return;
    }
    // Anything else written over our state by someone else (a later process that will give way, a
    // stray client) is replaced by the truth within the interval, so a flood cannot make us flood.
    // What was retained before we connected is about to be replaced by the birth anyway.
    if (!retained) this.#schedule(false);
  }

  #changed(value: MachineValue): void {
    const last = this.#lastSent;
    this.#schedule(
      last === null ||
        last.jobState !== value.jobState ||
        last.connection !== value.connection ||
        last.status !== fleetStatus(value),
    );
  }

  /** Now for a transition or once the interval has passed; else once it has, the latest state winning. */
  #schedule(transition: boolean): void {
    if (this.#stopped || this.#conflict || !this.#client?.connected) return;
    const wait = this.#lastSentAt + this.#config.minIntervalMs - this.#clock();
    if (transition || wait <= 0) {
      this.#publishNow();
      return;
    }
    if (this.#pending) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      // Timers may fire a millisecond early; looking again keeps the interval a true minimum.
      this.#schedule(false);
    }, wait);
    this.#pending.unref();
  }

  #publishNow(): void {
    const client = this.#client;
    if (this.#stopped || this.#conflict || !client?.connected) return;
    clearTimeout(this.#pending);
    this.#pending = undefined;
    const value = this.#feed.value;
    const machine = this.#config.publishJobName ? value : { ...value, jobName: null };
    this.#lastSentAt = this.#clock();
    this.#lastSent = { status: fleetStatus(value), jobState: value.jobState, connection: value.connection };
    void this.#send(client, onlineState(this.identity, machine, new Date(this.#lastSentAt)));
  }

  #send(client: MqttClient, state: FleetState): Promise<void> {
    return new Promise((resolve) => {
      client.publish(
        this.topic,
        JSON.stringify(state),
        { qos: 1, retain: true, properties: PUBLISH_PROPERTIES },
        (error) => {
          if (!error) this.#lastPublishAt = state.at;
          else if ((error as Error & { code?: unknown }).code === 135) {
            this.#lastError = `not authorised to publish to ${this.topic}`;
            if (!this.#denied)
              this.#logger.error(
                { event: 'fleet.publish.denied', topic: this.topic },
                `fleet.publish.denied: the broker does not let this workstation publish to ${this.topic}`,
              );
            this.#denied = true;
          } else this.#noteError(error.message);
          resolve();
        },
      );
    });
  }

  #failed(error: Error & { code?: unknown }): void {
    const tls = typeof error.code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|HOSTNAME/.test(error.code);
    this.#noteError(tls ? `TLS: ${error.code}` : error.message, error.code);
  }

  #noteError(message: string, code?: unknown): void {
    if (this.#lastError === message) return;
    this.#lastError = message;
    this.#logger.warn(
      { event: 'fleet.error', broker: this.#config.brokerUrl, code, error: message },
      `fleet.error: ${message}`,
    );
  }

  #closed(client: MqttClient): void {
    if (this.#wasConnected)
      this.#logger.info(
        { event: 'fleet.disconnected', broker: this.#config.brokerUrl },
        'fleet.disconnected',
      );
    this.#wasConnected = false;
    if (this.#stopped || this.#conflict || this.#client !== client || this.#retry) return;
    const delay =
      Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.#attempts) * (0.8 + Math.random() * 0.4);
    this.#attempts += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#stopped || this.#conflict) return;
      // The will carries the time of the connect it belongs to.
      client.options.will = this.#will();
      client.reconnect();
    }, delay);
    this.#retry.unref();
  }

  #disconnect(client: MqttClient): Promise<void> {
    return withinTime(
      new Promise<void>((resolve) => client.end(false, { reasonCode: 0 }, () => resolve())),
      STOP_WAIT_MS,
    ).then(() => {
      if (!client.disconnected) client.end(true);
    });
  }
}

function readCa(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw invalid('FLEET_CA_FILE', path, `FLEET_CA_FILE cannot be read (${code})`);
  }
}

function withinTime(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
