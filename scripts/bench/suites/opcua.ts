// The read-only OPC UA server's figures: how long it takes to listen (with its certificate made, and
// with it already there) and how soon a SCADA's subscription hears a change of the machine feed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { OpcuaConfig } from '../../../server/config/opcua.ts';
import { OpcuaService } from '../../../server/fleet/opcua/service.ts';
import { Controller } from '../../../server/fleet/testing/controller.ts';
import { MachineFeed } from '../../../server/gateway/realtime/machine-feed.ts';
import { type Bench, median, reportTimes } from '../support/report.ts';

const CONFIG: OpcuaConfig = {
  port: 0,
  host: '127.0.0.1',
  workstationId: 'bench-1',
  name: 'Bench winder',
  model: 'Filament winder',
  user: null,
  allowAnonymous: true,
};
const PUBLISHING_INTERVAL_MS = 100;
const CHANGES = 60;

export const bench: Bench = async (report) => {
  const root = await mkdtemp(join(tmpdir(), 'towpath-bench-opcua-'));
  const controller = new Controller();
  const feed = new MachineFeed(controller);
  const certificates: number[] = [];
  const lines: { event?: string; certificateCreatedMs?: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  /** Starts a service on `dataDir` and returns it with the milliseconds until it listened. */
  const start = async (dataDir: string) => {
    const service = new OpcuaService({ config: CONFIG, dataDir, feed, logger });
    const t0 = performance.now();
    service.start();
    const status = await service.whenStarted();
    if (status.endpoint === null) throw new Error(`OPC UA did not start: ${status.lastError}`);
    return { service, ms: performance.now() - t0, endpoint: status.endpoint };
  };
  try {
    // node-opcua's own loading is a one-off per process: the first start pays it, once.
    const withImport = await start(join(root, 'first'));
    report('opcua.start.with-import', 'ms', withImport.ms, null);
    await withImport.service.stop();
    const first: number[] = [];
    const again: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dataDir = join(root, `data-${i}`);
      const fresh = await start(dataDir);
      first.push(fresh.ms);
      certificates.push(
        lines.findLast((l) => l.event === 'opcua.listening')?.certificateCreatedMs ?? Number.NaN,
      );
      await fresh.service.stop();
      const existing = await start(dataDir);
      again.push(existing.ms);
      await existing.service.stop();
    }
    reportTimes(report, 'opcua.start.first', first, null);
    reportTimes(report, 'opcua.start.again', again, null);
    report('opcua.certificate.create.median', 'ms', median(certificates), null);

    // Loaded only now, so that the first start above paid for loading node-opcua, as a core does.
    const { AttributeIds, TimestampsToReturn } = await import('node-opcua');
    const { anonymousClient } = await import('../../../server/fleet/opcua/testing/anonymous-client.ts');
    const { service, endpoint } = await start(join(root, 'data-0'));
    const { session, close } = await anonymousClient(endpoint, join(root, 'client-pki'));
    try {
      const subscription = await session.createSubscription2({
        requestedPublishingInterval: PUBLISHING_INTERVAL_MS,
        publishingEnabled: true,
      });
      const item = await subscription.monitor(
        { nodeId: 'ns=1;s=bench-1.LinesSent', attributeId: AttributeIds.Value },
        { samplingInterval: 0, queueSize: 10 },
        TimestampsToReturn.Neither,
      );
      const waiting = new Map<number, (at: number) => void>();
      item.on('changed', (value) => waiting.get(value.value.value as number)?.(performance.now()));
      controller.state('ready');
      controller.state('streaming');
      const latencies: number[] = [];
      for (let i = 1; i <= CHANGES; i++) {
        const heard = new Promise<number>((resolve) => waiting.set(i, resolve));
        const t0 = performance.now();
        controller.progress(i, CHANGES);
        latencies.push((await heard) - t0);
        waiting.delete(i);
        // Changes further apart than the publishing interval, as a job's progress is to a SCADA.
        await new Promise((resolve) => setTimeout(resolve, PUBLISHING_INTERVAL_MS * 1.5));
      }
      latencies.sort((a, b) => a - b);
      report('opcua.change-to-notification.median', 'ms', median(latencies), PUBLISHING_INTERVAL_MS);
      report(
        'opcua.change-to-notification.p99',
        'ms',
        latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Number.NaN,
        PUBLISHING_INTERVAL_MS + 150,
      );
      await subscription.terminate();
    } finally {
      await close();
      await service.stop();
    }
  } finally {
    feed.close();
    await rm(root, { recursive: true, force: true });
  }
};
