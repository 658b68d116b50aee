import type { Config } from './config.ts';
import { openDataDir } from './data-dir.ts';
import { type DashboardApi, type DashboardApiOptions, openDashboardApi } from './graphql/api.ts';
import type { HttpTimeouts } from './http/app.ts';
import { Door } from './http/door.ts';
import { buildLanDoor } from './lan/door.ts';
import { createLogger, type Logger } from './log.ts';
import { MachineController, type MachineControllerOptions } from './machine/controller.ts';
import { VERSION } from './version.ts';
import { buildWindingDoor } from './winding/door.ts';
import { announceWorkstation } from './workstation-file.ts';

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
  /** The dashboard GraphQL API on the LAN door (database, services). */
  dashboardApi: DashboardApi;
  /** The one machine controller of this process (serial port, job, e-stop). */
  machine: MachineController;
  /** Stops both doors; safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Test hooks for the dashboard API: an injected clock, a cheaper Argon2id cost, a hasher. */
  dashboardApi?: Pick<DashboardApiOptions, 'clock' | 'argon2Cost' | 'passwords' | 'serviceAccounts'>;
  /** Test hooks for the machine controller: shorter protocol timings, an injected port opener. */
  machine?: Omit<MachineControllerOptions, 'logger'>;
  /** Test hook: shorter client timeouts for both doors. */
  httpTimeouts?: HttpTimeouts;
}

/**
 * Starts the Towpath core: opens the data dir, then the winding door and the LAN door. Electron's
 * main process and `towpath serve` both call this. On failure nothing is left listening and a
 * `StartupError` (one clear line) or `ConfigError` is thrown.
 */
export async function startWorkstation(config: Config, options: StartOptions = {}): Promise<Workstation> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const dataDir = await openDataDir(config.dataDir);
  for (const warning of config.warnings ?? []) logger.warn(warning);
  // Before any door listens: a newer or damaged database, or a bad secret, stops the start here.
  const dashboardApi = await openDashboardApi({
    ...options.dashboardApi,
    config: config.api,
    dataDir,
    logger,
  });

  const machine = new MachineController({ ...options.machine, logger });

  const winding = new Door('winding', config.winding, () =>
    buildWindingDoor({
      logger,
      dataDir,
      resourcesDir: config.resourcesDir,
      allowedRoots: config.winding.allowedRoots,
      machine,
      allowedHosts: config.allowedHosts,
      corsOrigins: config.api.corsOrigins,
      timeouts: options.httpTimeouts,
    }),
  );
  const lan = new Door('LAN', config.lan, () =>
    buildLanDoor({
      logger,
      rendererDir: config.rendererDir,
      winding,
      graphql: dashboardApi.register,
      machine: {
        controller: machine,
        allowRemote: () => config.machineRemoteControl,
        allowedRoots: config.winding.allowedRoots,
      },
      guards: { allowedHosts: config.allowedHosts, corsOrigins: config.api.corsOrigins },
      timeouts: options.httpTimeouts,
      tasks: config.tasks,
    }),
  );

  try {
    await winding.start();
  } catch (error) {
    dashboardApi.close();
    throw error;
  }
  try {
    await lan.start();
  } catch (error) {
    await winding.stop();
    dashboardApi.close();
    throw error;
  }

  const urls = { lan: lan.url, winding: winding.url };
  // Tools on this PC (the sidecar's machine_status) find the running workstation through this file.
  const unannounce = await announceWorkstation(dataDir, urls).catch((error: unknown) => {
    logger.warn({ err: error }, 'could not write workstation.json');
    return async () => {};
  });
  logger.info({ version: VERSION, urls, dataDir }, `Towpath ${VERSION} is running at ${urls.lan}/`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.allSettled([unannounce(), lan.stop(), winding.stop()]);
      // A running job stops at the next line boundary rather than mid-line.
      await machine
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, 'machine did not close cleanly'));
      dashboardApi.close();
      logger.info('Towpath stopped');
    })();
    return stopping;
  };

  return { urls, dataDir, doors: { lan, winding }, logger, dashboardApi, machine, stop };
}
