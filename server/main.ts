import { VERSION } from '../bridge/version.ts';
import type { HostTimings } from '../engine/machine/host.ts';
import type { ServiceAccountAuthenticator } from './auth/principal.ts';
import type { Config } from './config/index.ts';
import { openDataDir } from './data-dir.ts';
import { OpcuaService } from './fleet/opcua/service.ts';
import { FleetPublisher } from './fleet/publisher.ts';
import { createGateway, type Gateway } from './gateway/embedded.ts';
import { type GatewayChecks, gatewayChecks } from './gateway/internal/checks.ts';
import { internalGatewayDoor } from './gateway/internal/routes.ts';
import { MachineFeed } from './gateway/realtime/machine-feed.ts';
import { graphqlDoor } from './graphql/yoga.ts';
import type { HttpTimeouts } from './http/app.ts';
import { Door } from './http/door.ts';
import { createPathPolicy } from './http/paths.ts';
import { buildLanDoor } from './lan/door.ts';
import { createCoreLogger, type Logger } from './log.ts';
import { signedInUser } from './machine/forward.ts';
import { MachineLink } from './machine/link.ts';
import { type OpenedServices, openServices, type ServicesOptions } from './services.ts';
import { buildWindingDoor } from './winding/door.ts';
import { OutputFolders } from './winding/output-folders.ts';
import { announceWorkstation } from './workstation-file.ts';

export interface WorkstationUrls {
  /** The LAN door as this machine reaches it; the renderer lives at `${lan}/`. */
  lan: string;
  /** The winding door (loopback by default). */
  winding: string;
  /** The machine process's door (always loopback); changes only if it is restarted on port 0. */
  readonly machine: string;
}

export interface Workstation {
  urls: WorkstationUrls;
  dataDir: string;
  doors: { lan: Door; winding: Door };
  logger: Logger;
  /**
   * The services behind the LAN door's GraphQL API and gateway (database, secrets, every area's
   * rules), with the gateway checks of dashboard spec §13 bound to them.
   */
  dashboardApi: OpenedServices & { gatewayChecks: GatewayChecks };
  /** The realtime gateway on the LAN door (`/gateway/*`). */
  gateway: Gateway;
  /** The link to the machine process (the one serial port, job and e-stop of the data dir). */
  machine: MachineLink;
  /** The read-only fleet publisher (MQTT), when FLEET_BROKER_URL is set. */
  fleet: FleetPublisher | null;
  /** The read-only OPC UA server; its status() says `enabled: false` when OPCUA_PORT is unset. */
  opcua: OpcuaService;
  /** Stops both doors; safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /**
   * Test hooks for the services and GraphQL: an injected clock, a cheaper Argon2id cost, a hasher,
   * a service-account authenticator for GraphQL.
   */
  dashboardApi?: Pick<ServicesOptions, 'clock' | 'argon2Cost' | 'passwords'> & {
    serviceAccounts?: ServiceAccountAuthenticator;
  };
  /** Test hooks for a machine process this core starts: shorter protocol timings, another entry. */
  machine?: { timings?: Partial<HostTimings>; entry?: string };
  /** Test hook: shorter client timeouts for both doors. */
  httpTimeouts?: HttpTimeouts;
}

/**
 * Starts the Towpath core: opens the data dir, then the winding door and the LAN door. Electron's
 * main process and `towpath serve` both call this. On failure nothing is left listening and a
 * `StartupError` (one clear line) or `ConfigError` is thrown.
 */
export async function startWorkstation(config: Config, options: StartOptions = {}): Promise<Workstation> {
  const logger = options.logger ?? createCoreLogger(config);
  const dataDir = await openDataDir(config.dataDir);
  for (const warning of config.warnings ?? []) logger.warn(warning);
  // Before any door listens: a newer or damaged database, or a bad secret, stops the start here.
  const { serviceAccounts, ...serviceHooks } = options.dashboardApi ?? {};
  const opened = await openServices({ ...serviceHooks, config: config.api, dataDir, logger });
  const { services, secrets } = opened;
  const checks = gatewayChecks(services, secrets.JWT_GATEWAY_SECRET);
  const dashboardApi = { ...opened, gatewayChecks: checks };
  const graphql = graphqlDoor(services, serviceAccounts);

  let lanOrigins: string[] = [];
  /** The core is ready once the machine process is attached (or has failed to start). */
  let ready = false;
  const machine = new MachineLink({
    dataDir,
    logger,
    settings: {
      port: config.machine.port,
      portFixed: config.machine.portFixed,
      nice: config.machine.nice,
      remoteControl: config.machineRemoteControl,
      allowedRoots: config.winding.allowedRoots,
      logLevel: config.logLevel,
    },
    ...(options.machine?.timings ? { timings: options.machine.timings } : {}),
    ...(options.machine?.entry ? { entry: options.machine.entry } : {}),
    origins: () => lanOrigins,
  });
  // The shop's broker and OPC UA clients hear the `machine` datasource's value and nothing else.
  // Made before any door listens, so an unreadable CA file stops the start like any other bad setting.
  const fleetFeed = config.fleet || config.opcua ? new MachineFeed(machine) : null;
  const fleet =
    config.fleet && fleetFeed ? new FleetPublisher({ config: config.fleet, feed: fleetFeed, logger }) : null;
  const opcua = new OpcuaService({ config: config.opcua, dataDir, feed: fleetFeed, logger });
  // Found or started while the doors start; attached once the LAN door's origins are known.
  const located = machine.locate();
  located.catch(() => {});
  const gateway = createGateway({
    settings: config.realtimeGateway,
    services,
    gatewaySecret: secrets.JWT_GATEWAY_SECRET,
    machine,
  });
  // §15: the embedded gateway's counters while it runs; else GATEWAY_RUNTIME_METRICS_URL's.
  if (config.realtimeGateway.enabled)
    services.gatewayMetrics = async () => ({ ...gateway.metrics.snapshot() });
  if (fleet) services.shopLinks.fleet = () => fleet.runtime();
  if (config.opcua) services.shopLinks.opcua = () => opcua.status();
  // Temporary plan files a crash left behind, in the folders plans went to (within today's roots).
  const outputFolders = await OutputFolders.open(dataDir, logger);
  await outputFolders.removeStaleTemporaries(await createPathPolicy(config.winding.allowedRoots));

  const winding = new Door('winding', config.winding, () =>
    buildWindingDoor({
      logger,
      dataDir,
      resourcesDir: config.resourcesDir,
      allowedRoots: config.winding.allowedRoots,
      machine,
      outputFolders,
      allowedHosts: config.allowedHosts,
      corsOrigins: config.api.corsOrigins,
      timeouts: options.httpTimeouts,
      ready: () => ready,
    }),
  );
  const lan = new Door('LAN', config.lan, () =>
    buildLanDoor({
      logger,
      rendererDir: config.rendererDir,
      winding,
      clientAddresses: services.clientAddresses,
      graphql,
      // For a gateway running outside this process (§13.1); the embedded one calls the checks directly.
      internalGateway: internalGatewayDoor({ services, checks, serviceToken: secrets.GATEWAY_SERVICE_TOKEN }),
      gateway: gateway.register,
      machine: {
        machineUrl: () => machine.url,
        allowRemote: () => config.machineRemoteControl,
        isSignedIn: signedInUser(services),
      },
      guards: { allowedHosts: config.allowedHosts, corsOrigins: config.api.corsOrigins },
      timeouts: options.httpTimeouts,
      tasks: config.tasks,
      links: { publicUrl: config.publicUrl, host: config.lan.host },
      ready: () => ready,
    }),
  );

  try {
    await winding.start();
  } catch (error) {
    machine.abandon();
    await gateway.close();
    opened.close();
    throw error;
  }
  try {
    await lan.start();
    const port = new URL(lan.url).port;
    lanOrigins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
  } catch (error) {
    machine.abandon();
    await Promise.allSettled([gateway.close(), lan.stop(), winding.stop()]);
    opened.close();
    throw error;
  }
  // Until this returns, /healthz answers 503 and machine routes 503 "starting". A machine process
  // that cannot start (its port taken, its entry missing) does not stop the core: the reason is
  // logged once and machine routes answer it.
  await machine.attachOrExplain(located);
  ready = true;
  fleet?.start();

  const urls: WorkstationUrls = {
    lan: lan.url,
    winding: winding.url,
    get machine() {
      return machine.url;
    },
  };
  // Tools on this PC (the sidecar's machine_status) find the running workstation through this file.
  const unannounce = await announceWorkstation(dataDir, { lan: urls.lan, winding: urls.winding }).catch(
    (error: unknown) => {
      logger.warn({ err: error }, 'could not write workstation.json');
      return async () => {};
    },
  );
  logger.info(
    {
      version: VERSION,
      urls: { lan: urls.lan, winding: urls.winding },
      machineUrl: machine.problem ? null : urls.machine,
      dataDir,
    },
    `Towpath ${VERSION} is running at ${urls.lan}/`,
  );
  // Only now, in the background: loading node-opcua takes about a second of this thread, and the
  // core is already serving and has said so.
  opcua.start();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // `shutdown` reaches the broker before anything else goes, so fleet views never see a will.
      await fleet
        ?.stop()
        .catch((error: unknown) => logger.warn({ err: error }, 'fleet publisher did not stop cleanly'));
      await opcua
        .stop()
        .catch((error: unknown) => logger.warn({ err: error }, 'OPC UA server did not stop cleanly'));
      fleetFeed?.close();
      // Subscribers hear `server_shutdown` before the door stops listening.
      await gateway
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, 'gateway did not close cleanly'));
      await Promise.allSettled([unannounce(), lan.stop(), winding.stop()]);
      // Detaches: a running job goes on in the machine process; an idle one exits.
      await machine
        .stop()
        .catch((error: unknown) => logger.warn({ err: error }, 'machine link did not close cleanly'));
      opened.close();
      logger.info('Towpath stopped');
    })();
    return stopping;
  };

  return {
    urls,
    dataDir,
    doors: { lan, winding },
    logger,
    dashboardApi,
    gateway,
    machine,
    fleet,
    opcua,
    stop,
  };
}
