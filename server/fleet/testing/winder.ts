// Test support: one winder of a test shop, a `towpath serve` child publishing to the recipe's broker
// with its own credential and the shop CA, as docs/fleet.md §2 sets a winder up.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Running, startNode } from '../../testing/process.ts';
import { removeTempDir } from '../../testing/workstation.ts';
import type { RecipeBroker } from './recipe-broker.ts';

export interface Winder {
  id: string;
  run: Running;
  /** The LAN door. */
  url: string;
  dataDir: string;
  /** When the core said it runs. */
  runningAt: number;
  /** Kills it if it still runs and removes its data dir. */
  dispose(): Promise<void>;
}

/** The fleet settings of winder `id` (`w01` is named "Winder 01"); a hung PC is noticed after 1.5 × 5 s. */
export function winderEnv(id: string, broker: RecipeBroker): Record<string, string> {
  return {
    MACHINE_PORT: '0',
    FLEET_BROKER_URL: broker.url,
    FLEET_WORKSTATION_ID: id,
    FLEET_NAME: `Winder ${id.slice(1)}`,
    FLEET_PASSWORD: broker.passwords[id] as string,
    FLEET_CA_FILE: broker.caFile,
    FLEET_KEEPALIVE_SECONDS: '5',
  };
}

export async function startWinder(id: string, broker: RecipeBroker): Promise<Winder> {
  const dataDir = await mkdtemp(join(tmpdir(), `towpath-winder-${id}-`));
  const run = startNode('server/cli.ts', ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    WINDING_PORT: '0',
    TOWPATH_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...winderEnv(id, broker),
  });
  const dispose = async () => {
    run.child.kill('SIGCONT');
    run.child.kill('SIGKILL');
    await removeTempDir(dataDir);
  };
  try {
    const [, url] = await run.waitFor(/is running\. Open (http:\/\/[^\s/]+)\//);
    return { id, run, url: url as string, dataDir, runningAt: Date.now(), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
