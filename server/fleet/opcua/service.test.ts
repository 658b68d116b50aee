// The OPC UA service on its own, fed by the real machine feed over a controller stand-in (the feed's
// input is the machine process's events; nothing else is faked): every machine state a SCADA can see,
// what status() says, and a port already taken.
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AttributeIds, type ClientSession, TimestampsToReturn } from 'node-opcua';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../engine/testing/eventually.ts';
import type { OpcuaConfig } from '../../config/opcua.ts';
import { MachineFeed } from '../../gateway/realtime/machine-feed.ts';
import { createLogger } from '../../log.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { Controller } from '../testing/controller.ts';
import { OpcuaService } from './service.ts';
import { anonymousClient } from './testing/anonymous-client.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const config = (overrides: Partial<OpcuaConfig> = {}): OpcuaConfig => ({
  port: 0,
  host: '127.0.0.1',
  workstationId: 'w07',
  name: 'Winder 7',
  model: 'FW-3000',
  user: null,
  allowAnonymous: true,
  ...overrides,
});

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

async function start(overrides: Partial<OpcuaConfig> = {}) {
  const controller = new Controller();
  controller.current = { ...controller.current, state: 'idle', port: null, baudRate: null, controller: null };
  const feed = new MachineFeed(controller);
  const { lines, logger } = logLines();
  const dataDir = await makeTempDir();
  const service = new OpcuaService({ config: config(overrides), dataDir, feed, logger });
  cleanups.push(async () => {
    await service.stop();
    feed.close();
  });
  service.start();
  const status = await service.whenStarted();
  return { controller, service, status, lines, dataDir };
}

async function anonymousSession(endpoint: string, dataDir: string): Promise<ClientSession> {
  const { session, close } = await anonymousClient(endpoint, join(dataDir, 'client-pki'));
  cleanups.push(close);
  return session;
}

describe('the OPC UA service', () => {
  it('says it is off, and does nothing, without OPCUA_PORT', async () => {
    const { lines, logger } = logLines();
    const service = new OpcuaService({ config: null, dataDir: await makeTempDir(), feed: null, logger });
    service.start();
    expect(await service.whenStarted()).toEqual({
      enabled: false,
      endpoint: null,
      clients: 0,
      lastError: null,
      startedAt: null,
    });
    await service.stop();
    expect(lines).toEqual([]);
  });

  it('shows every machine state as its MachineryItemState, with the last error', async () => {
    const { controller, service, status, lines, dataDir } = await start();
    expect(status).toMatchObject({ enabled: true, clients: 0, lastError: null });
    expect(Date.parse(status.startedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(lines.find((l) => l.event === 'opcua.listening')).toMatchObject({
      endpoint: status.endpoint,
      anonymous: true,
    });
    const session = await anonymousSession(status.endpoint as string, dataDir);
    expect(service.status().clients).toBe(1);
    expect(lines.filter((l) => l.event === 'opcua.session').map((l) => [l.user, l.securityMode])).toEqual([
      ['anonymous', 'None'],
    ]);

    const [path] = await session.translateBrowsePath([
      {
        startingNode: 'ns=1;s=w07.MachineryItemState',
        relativePath: { elements: [{ targetName: { namespaceIndex: 0, name: 'CurrentState' } }] },
      },
    ]);
    const subscription = await session.createSubscription2({
      requestedPublishingInterval: 50,
      publishingEnabled: true,
    });
    const heard: { state: string; status: string; lastError: string | null }[] = [];
    const latest = { state: '', status: '', lastError: null as string | null };
    const monitor = async (nodeId: string, take: (value: unknown) => void) => {
      const item = await subscription.monitor(
        { nodeId, attributeId: AttributeIds.Value },
        { samplingInterval: 0, queueSize: 100 },
        TimestampsToReturn.Neither,
      );
      item.on('changed', (dataValue) => take(dataValue.value.value));
    };
    await monitor(path?.targets?.[0]?.targetId.toString() ?? '', (v) => {
      latest.state = (v as { text: string }).text;
      heard.push({ ...latest });
    });
    await monitor('ns=1;s=w07.Status', (v) => {
      latest.status = v as string;
    });
    await monitor('ns=1;s=w07.LastError', (v) => {
      latest.lastError = v as string | null;
    });

    const expectState = (state: string, fleetStatus: string) =>
      eventually(() => latest.state === state && latest.status === fleetStatus, 5000);
    await expectState('NotAvailable', 'disconnected');
    controller.state('connecting');
    controller.state('ready');
    await expectState('NotExecuting', 'idle');
    controller.progress(0, 100);
    controller.state('streaming');
    await expectState('Executing', 'running');
    controller.state('paused');
    await expectState('NotExecuting', 'paused');
    controller.state('streaming');
    await expectState('Executing', 'running');
    controller.state('error', 'Emergency stop');
    await expectState('OutOfService', 'error');
    await eventually(() => latest.lastError === 'Emergency stop', 5000);
    expect(heard.map((h) => h.state).filter((s, i, all) => s !== all[i - 1])).toEqual([
      'NotAvailable',
      'NotExecuting',
      'Executing',
      'NotExecuting',
      'Executing',
      'OutOfService',
    ]);
  }, 60_000);

  it('leaves the rest running and says why when its port is taken', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    cleanups.push(() => new Promise((resolve) => holder.close(resolve)));
    const port = (holder.address() as { port: number }).port;
    const { status, lines } = await start({ port });
    expect(status).toEqual({
      enabled: true,
      endpoint: null,
      clients: 0,
      lastError: `OPCUA_PORT ${port} is taken by another program`,
      startedAt: null,
    });
    expect(lines.filter((l) => l.event === 'opcua.error')).toMatchObject([
      {
        level: 50,
        msg: `opcua.error: the OPC UA server did not start: OPCUA_PORT ${port} is taken by another program`,
      },
    ]);
  }, 60_000);
});
