// The publisher against a broker set up the way a shop's should be: TLS with the shop's own CA, one
// password per workstation, and an ACL that lets each write only its own subtree.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt, { type IClientOptions } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../engine/testing/eventually.ts';
import type { FleetConfig } from '../config/fleet.ts';
import { MachineFeed } from '../gateway/realtime/machine-feed.ts';
import { createLogger } from '../log.ts';
import { type Mosquitto, startMosquitto } from '../testing/mosquitto.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { FleetPublisher } from './publisher.ts';
import { Controller } from './testing/controller.ts';
import { type Observer, observe } from './testing/observer.ts';
import { fleetSettings } from './testing/settings.ts';

const USERS = [
  { username: 'w01', password: 'w01-password-long-and-random' },
  { username: 'w02', password: 'w02-password-long-and-random' },
  { username: 'viewer', password: 'viewer-password-long-and-random' },
];
const password = (username: string) => USERS.find((u) => u.username === username)?.password ?? '';

let broker: Mosquitto;
let caFile: string;
beforeAll(async () => {
  broker = await startMosquitto({
    tls: true,
    users: USERS,
    acl: ['pattern write towpath/v1/%u/#', 'pattern read towpath/v1/#'],
  });
  caFile = broker.caFile as string;
});
afterAll(async () => {
  await broker?.stop();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function publisher(workstationId: string, overrides: Partial<FleetConfig> = {}) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      raw.push(line);
      lines.push(JSON.parse(line));
    },
  });
  const controller = new Controller();
  const feed = new MachineFeed(controller);
  const fleet = new FleetPublisher({
    config: fleetSettings(broker.url, workstationId, {
      password: password(workstationId),
      caFile,
      ...overrides,
    }),
    feed,
    logger,
  });
  cleanups.push(async () => {
    await fleet.stop();
    feed.close();
  });
  return { fleet, lines, raw, controller };
}

async function client(username: string | null): Promise<mqtt.MqttClient> {
  const options: IClientOptions = {
    protocolVersion: 5,
    reconnectPeriod: 0,
    ca: readFileSync(caFile),
    ...(username ? { username, password: password(username) } : {}),
  };
  const connected = await mqtt.connectAsync(broker.url, options);
  cleanups.push(() => connected.endAsync());
  return connected;
}

async function viewer(): Promise<Observer> {
  const observer = await observe(broker.url, 'towpath/v1/+/state', {
    username: 'viewer',
    password: password('viewer'),
    ca: readFileSync(caFile),
  });
  cleanups.push(() => observer.end());
  return observer;
}

describe('fleet publisher on a TLS broker with passwords and an ACL', () => {
  it('publishes over TLS with its own credential, the password in no log line', async () => {
    const live = await viewer();
    const { fleet, raw } = publisher('w01');
    fleet.start();
    const birth = await live.next((h) => h.state?.instance === fleet.identity.instance, 3000);
    expect(birth.state).toMatchObject({ workstationId: 'w01', online: true });
    expect(raw.join('')).not.toContain(password('w01'));
  });

  it('refuses a broker whose certificate its CA did not sign, logging the TLS error', async () => {
    const dir = await makeTempDir();
    const otherCa = join(dir, 'other-ca.pem');
    // Any other CA: a self-signed certificate made for this test.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'k'),
        '-out',
        otherCa,
        '-days',
        '1',
        '-subj',
        '/CN=Other CA',
      ],
      { stdio: 'ignore' },
    );
    const live = await viewer();
    const { fleet, lines } = publisher('w02', { caFile: otherCa });
    fleet.start();
    await eventually(() => lines.some((line) => line.event === 'fleet.error'), 5000);
    const error = lines.find((line) => line.event === 'fleet.error');
    expect(String(error?.error)).toMatch(/^TLS: /);
    expect(fleet.runtime()).toMatchObject({ connected: false });
    expect(live.heard.filter((h) => h.state?.instance === fleet.identity.instance)).toEqual([]);
  });

  it("lets one workstation's credential write only its own state", async () => {
    const live = await viewer();
    const { fleet } = publisher('w02');
    fleet.start();
    await live.next((h) => h.state?.instance === fleet.identity.instance, 3000);
    const w01 = await client('w01');
    // MQTT 5: the broker answers 0x87 (not authorised), and w02's state stays.
    await expect(
      w01.publishAsync('towpath/v1/w02/state', JSON.stringify({ online: false }), { qos: 1, retain: true }),
    ).rejects.toMatchObject({ code: 0x87 });
    const viewerClient = await client('viewer');
    await expect(
      viewerClient.publishAsync('towpath/v1/w02/state', '', { qos: 1, retain: true }),
    ).rejects.toMatchObject({ code: 0x87 });
    const late = await viewer();
    const kept = await late.next((h) => h.topic === 'towpath/v1/w02/state', 2000);
    expect(kept.state?.instance).toBe(fleet.identity.instance);
    // Anonymous clients are refused outright.
    await expect(client(null)).rejects.toThrow();
  });

  it('logs once when the broker will not let it publish its state', async () => {
    // The ACL lets w01 write under towpath/v1/w01/ only.
    const { fleet, lines, controller } = publisher('w01', { topicPrefix: 'elsewhere/v1' });
    fleet.start();
    await eventually(() => lines.some((line) => line.event === 'fleet.publish.denied'), 5000);
    expect(fleet.runtime().lastError).toBe('not authorised to publish to elsewhere/v1/w01/state');
    // Mosquitto 2.0 then closes the session; each reconnect is refused again, without another log line.
    await eventually(() => lines.filter((line) => line.event === 'fleet.connected').length >= 2, 10_000);
    controller.state('paused');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.event === 'fleet.publish.denied')).toHaveLength(1);
    expect(fleet.runtime().lastError).toBe('not authorised to publish to elsewhere/v1/w01/state');
  });
});
