import type { Config } from './config.ts';
import { openDataDir } from './data-dir.ts';
import { Door } from './http/door.ts';
import { buildLanDoor } from './lan/door.ts';
import { createLogger, type Logger } from './log.ts';
import { VERSION } from './version.ts';
import { buildWindingDoor } from './winding/door.ts';

export interface WorkstationUrls {
  /** The LAN door as this machine reaches it; the renderer lives at `${lan}/`. */
  lan: string;
  /** The winding door (loopback by default). */
  winding: string;
}

export interface Workstation {
  urls: WorkstationUrls;
  dataDir: string;
  doors: { lan: Door; winding: Door };
  logger: Logger;
  /** Stops both doors; safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
}

/**
 * Starts the Towpath core: opens the data dir, then the winding door and the LAN door. Electron's
 * main process and `towpath serve` both call this. On failure nothing is left listening and a
 * `StartupError` (one clear line) or `ConfigError` is thrown.
 */
export async function startWorkstation(config: Config, options: StartOptions = {}): Promise<Workstation> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const dataDir = await openDataDir(config.dataDir);

  const winding = new Door('winding', config.winding, () => buildWindingDoor({ logger }));
  const lan = new Door('LAN', config.lan, () =>
    buildLanDoor({ logger, rendererDir: config.rendererDir, winding }),
  );

  await winding.start();
  try {
    await lan.start();
  } catch (error) {
    await winding.stop();
    throw error;
  }

  const urls = { lan: lan.url, winding: winding.url };
  logger.info({ version: VERSION, urls, dataDir }, `Towpath ${VERSION} is running at ${urls.lan}/`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.allSettled([lan.stop(), winding.stop()]);
      logger.info('Towpath stopped');
    })();
    return stopping;
  };

  return { urls, dataDir, doors: { lan, winding }, logger, stop };
}
