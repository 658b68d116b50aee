// The one place that reads the environment. Everything else receives a typed `Config`. Every
// section is read the same way (env.ts); the dashboard API's is api.ts, the secrets' rules secrets.ts.
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BridgeEnv, bridgeEnvOf, parseHostSettings } from '../../bridge/config.ts';
import { BridgeError } from '../../bridge/errors.ts';
import type { GatewaySettings } from '../gateway/settings.ts';
import { type ApiConfig, loadApiConfig } from './api.ts';
import { defaultDataDir, type Env, hostPlatform, type Platform } from './data-dir-default.ts';
import { ConfigError, type EnvReader, envReader, invalid } from './env.ts';
import { type FleetConfig, loadFleetConfig } from './fleet.ts';
import { loadOpcuaConfig, type OpcuaConfig } from './opcua.ts';

export { ConfigError } from './env.ts';
export type { FleetConfig } from './fleet.ts';
export type { OpcuaConfig } from './opcua.ts';
export { defaultDataDir, type Env, type Platform };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** What the core's terminal shows: one line per notable event for a person, or the JSON log for a service. */
const LOG_FORMATS = ['human', 'json'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  lan: { host: string; port: number };
  /**
   * `PUBLIC_URL`: where people on the LAN reach the LAN door, for the links the screens hand out
   * (share, invite, reset); null = the LAN door's own address (server/lan/links.ts).
   */
  publicUrl: string | null;
  winding: {
    host: string;
    port: number;
    /** Folders the winding door may read and write under (absolute, not yet canonical). */
    allowedRoots: string[];
  };
  dataDir: string;
  /** Folder holding the built renderer (index.html and assets). */
  rendererDir: string;
  /** Folder of files shipped with the app (examples, schemas). */
  resourcesDir: string;
  logLevel: LogLevel;
  /**
   * `LOG_FORMAT`: the JSON log always goes to `<data dir>/towpath.log`; `human` (the default) shows
   * the terminal one line per warning or error, `json` copies the JSON log to stdout for services.
   */
  logFormat: LogFormat;
  /** Machine-control routes on the LAN door answer non-loopback clients only when true. */
  machineRemoteControl: boolean;
  /**
   * The machine process's door: always on loopback; port 0 = any free port. Clients find it through
   * `<data dir>/machine.json`, so when MACHINE_PORT is not set and 8002 is taken, any free port does.
   */
  machine: {
    host: '127.0.0.1';
    port: number;
    portFixed: boolean;
    /**
     * `MACHINE_NICE`: the CPU priority the machine process asks for (its main thread and, leading a
     * session of its own, its autogroup); 0 leaves it as the system gives it.
     */
    nice: number;
  };
  /** `towpath serve` stops when the process that started it is gone (no orphaned core). */
  exitWithParent: boolean;
  /**
   * `ALLOWED_HOSTS`: names besides localhost, 127.0.0.1 and [::1] that the local-only routes
   * (the winding door, machine control, door control) answer to; DNS-rebinding protection.
   */
  allowedHosts: string[];
  /** The dashboard API (GraphQL) settings. */
  api: ApiConfig;
  /** Where the task app is and its token: the bridge CLI's own variables (bridge/config.ts). */
  tasks: BridgeEnv;
  /** Values that were clamped into range; start-up logs each as a warning. */
  warnings: string[];
  /** The realtime gateway on the LAN door (gateway spec §5.2, §7.2, §10). */
  realtimeGateway: GatewaySettings;
  /** The read-only fleet publisher (MQTT); null when FLEET_BROKER_URL is unset. */
  fleet: FleetConfig | null;
  /** The read-only OPC UA server; null when OPCUA_PORT is unset. */
  opcua: OpcuaConfig | null;
}

/** Default folder of shipped files: `resources` at the repository root. */
export const DEFAULT_RESOURCES_DIR = join(import.meta.dirname, '..', '..', 'resources');

/** Default folder for the built renderer: `dist/renderer` at the repository root. */
export const DEFAULT_RENDERER_DIR = join(import.meta.dirname, '..', '..', 'dist', 'renderer');

/**
 * WINDING_ALLOWED_ROOTS (winding spec §7.2): split on the platform's path delimiter, entries
 * trimmed, empty ones ignored, relative ones resolved against the working directory; unset or
 * empty means the user's home directory and the OS temp directory.
 */
function allowedRoots(value: string | undefined, { platform, home }: Platform): string[] {
  const delimiter = platform === 'win32' ? ';' : ':';
  const roots = (value ?? '')
    .split(delimiter)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => resolve(entry));
  return roots.length > 0 ? roots : [home, tmpdir()];
}

/**
 * Environment → typed configuration. Throws `ConfigError` naming the first bad variable and the
 * value it had, so start-up can print one line and exit 1.
 */
export function loadConfig(env: Env = process.env, platform: Platform = hostPlatform): Config {
  const read = envReader(env);
  // Read in this order so that, of several bad variables, the same one is named first every time.
  const lanHost = host(read, 'HOST');
  const publicUrl = origin(read, 'PUBLIC_URL');
  const apiHost = host(read, 'API_HOST');
  const lanPort = port(read, 'PORT', 4001);
  const windingHost = host(read, 'WINDING_HOST') ?? '127.0.0.1';
  const windingPort = port(read, 'WINDING_PORT', 8000);
  const roots = read.value('WINDING_ALLOWED_ROOTS');
  const dataDir = read.value('TOWPATH_DATA_DIR');
  const logLevel = read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info');
  const logFormat = read.oneOf('LOG_FORMAT', LOG_FORMATS, 'human');
  const machineRemoteControl = read.bool('MACHINE_REMOTE_CONTROL', false);
  const machinePort = port(read, 'MACHINE_PORT', 8002);
  const nice = read.wholeIn('MACHINE_NICE', -10, -20, 19);
  const exitWithParent = read.bool('TOWPATH_EXIT_WITH_PARENT', true);
  const allowedHosts = hostNames(read, 'ALLOWED_HOSTS');
  const tasks = taskHostEnv(env);
  const { api, realtimeGateway } = loadApiConfig(read, env);
  const fleet = loadFleetConfig(read);
  const opcua = loadOpcuaConfig(read);
  return {
    lan: { host: lanHost ?? apiHost ?? '0.0.0.0', port: lanPort },
    publicUrl,
    winding: { host: windingHost, port: windingPort, allowedRoots: allowedRoots(roots, platform) },
    dataDir: dataDir ?? defaultDataDir(env, platform),
    rendererDir: DEFAULT_RENDERER_DIR,
    resourcesDir: DEFAULT_RESOURCES_DIR,
    logLevel,
    logFormat,
    machineRemoteControl,
    machine: {
      host: '127.0.0.1',
      port: machinePort,
      portFixed: read.value('MACHINE_PORT') !== undefined,
      nice,
    },
    exitWithParent,
    allowedHosts,
    tasks,
    api,
    warnings: read.warnings,
    realtimeGateway,
    fleet,
    opcua,
  };
}

const port = (read: EnvReader, name: string, fallback: number) => read.wholeIn(name, fallback, 0, 65535);

function host(read: EnvReader, name: string): string | undefined {
  const raw = read.value(name);
  if (raw !== undefined && !/^[A-Za-z0-9.:[\]%-]+$/.test(raw))
    throw invalid(name, raw, `${name} must be a host name or an IP address`);
  return raw;
}

/** An origin people on the LAN reach the workstation at: http(s), no credentials, path or query. */
function origin(read: EnvReader, name: string): string | null {
  const raw = read.value(name);
  if (raw === undefined) return null;
  try {
    const url = new URL(raw);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === ''
    )
      return url.origin;
  } catch {}
  throw invalid(
    name,
    raw,
    `${name} must be an http(s) origin such as http://winder.local:4001, without a path`,
  );
}

/** Comma-separated host names without ports, lower-cased. */
function hostNames(read: EnvReader, name: string): string[] {
  const raw = read.value(name);
  const names = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (!names.every((entry) => /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/.test(entry)))
    throw invalid(name, raw, `${name} must be comma-separated host names without ports`);
  return names;
}

/** The task bridge's variables, checked by the bridge's own rules so a bad one stops start-up. */
function taskHostEnv(env: Env): BridgeEnv {
  const tasks = bridgeEnvOf(env);
  try {
    parseHostSettings(tasks);
  } catch (error) {
    if (!(error instanceof BridgeError)) throw error;
    const [issue] = (error.details?.issues ?? []) as { path: string; message: string }[];
    const name = issue?.path ?? 'TASK_HOST_URL';
    // The token itself is never echoed.
    const shown = name === 'TASK_HOST_TOKEN' ? '' : `=${JSON.stringify(env[name] ?? '')}`;
    throw new ConfigError(`invalid ${name}${shown}: ${name} ${issue?.message ?? error.message}`);
  }
  return tasks;
}
