// The fleet publisher as an admin sees it in `adminRuntimeMetrics` (Admin → Diagnostics): a real
// workstation publishing to a real Mosquitto, then losing it.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../engine/testing/eventually.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';
import { type Mosquitto, startMosquitto } from '../testing/mosquitto.ts';
import type { FleetRuntime } from './publisher.ts';

const QUERY =
  '{ adminRuntimeMetrics { fleet { connected broker topic lastPublishAt lastError conflict } opcua { listening endpoint clients } } }';

interface Links {
  fleet: Omit<FleetRuntime, never> | null;
  opcua: { listening: boolean; endpoint: string | null; clients: number } | null;
}

let f: Fixture | undefined;
let broker: Mosquitto | undefined;
afterEach(async () => {
  await f?.ws.dispose();
  f = undefined;
});
afterAll(async () => {
  await broker?.stop();
});

async function links(as: 'admin' | 'viewer' = 'admin'): Promise<Links> {
  const response = await (f as Fixture).call(QUERY, undefined, as);
  expect(response.errors, response.raw).toBeUndefined();
  return (response.data?.adminRuntimeMetrics as Links) ?? { fleet: null, opcua: null };
}

describe('fleet status in adminRuntimeMetrics', () => {
  it('is null while fleet and OPC UA are off', async () => {
    f = await startFixture();
    expect(await links()).toEqual({ fleet: null, opcua: null });
  });

  it('shows whether the OPC UA server listens, where, and for how many sessions', async () => {
    f = await startFixture({
      OPCUA_PORT: '0',
      OPCUA_HOST: '127.0.0.1',
      OPCUA_ALLOW_ANONYMOUS: '1',
      FLEET_WORKSTATION_ID: 'diag-ua',
    });
    await eventually(async () => (await links()).opcua?.listening === true, 30_000);
    const { opcua, fleet } = await links();
    expect(fleet).toBeNull();
    expect(opcua?.endpoint).toMatch(/^opc\.tcp:\/\/[^/]+:\d+/);
    expect(opcua?.clients).toBe(0);
  }, 60_000);

  it('shows the broker, the topic, the last publish and the last error', async () => {
    broker = await startMosquitto();
    f = await startFixture({ FLEET_BROKER_URL: broker.url, FLEET_WORKSTATION_ID: 'diag-1' });
    await eventually(async () => (await links()).fleet?.lastPublishAt != null, 10_000);
    const up = (await links()).fleet;
    expect(up).toMatchObject({
      connected: true,
      broker: broker.url,
      topic: 'towpath/v1/diag-1/state',
      lastError: null,
      conflict: false,
    });
    expect(Date.parse(up?.lastPublishAt ?? '')).not.toBeNaN();

    // The broker goes away: not connected, and the reason is there for the admin to read.
    await broker.kill();
    await eventually(async () => (await links()).fleet?.connected === false, 10_000);
    await eventually(async () => (await links()).fleet?.lastError != null, 10_000);
    expect((await links()).fleet?.lastPublishAt).toBe(up?.lastPublishAt);

    // Back again: connected, and the error is cleared by the new connection.
    await broker.restart();
    await eventually(async () => (await links()).fleet?.connected === true, 20_000);
    expect((await links()).fleet?.lastError).toBeNull();

    // Operators' figures are for admins only.
    const denied = await f.call(QUERY, undefined, 'viewer');
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  }, 60_000);
});
