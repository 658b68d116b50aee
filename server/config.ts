// The one place that reads the environment. Everything else receives a typed `Config`.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration problem the user can fix; its message is one clear line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be an integer between 0 and 65535`)
    .transform(Number)
    .refine((n) => n <= 65535, `${name} must be an integer between 0 and 65535`);

const host = (name: string) =>
  z
    .string()
    .trim()
    .min(1, `${name} must not be empty`)
    .regex(/^[A-Za-z0-9.:[\]%-]+$/, `${name} must be a host name or an IP address`);

/** Booleans as the dashboard spec §18 reads them: 1/true/0/false in any case, nothing else. */
const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['1', 'true', '0', 'false'].includes(v), `${name} must be 1, true, 0 or false`)
    .transform((v) => v === '1' || v === 'true');

const envSchema = z.object({
  HOST: host('HOST').optional(),
  API_HOST: host('API_HOST').optional(),
  PORT: port('PORT').default(4001),
  WINDING_HOST: host('WINDING_HOST').default('127.0.0.1'),
  WINDING_PORT: port('WINDING_PORT').default(8000),
  TOWPATH_DATA_DIR: z.string().trim().min(1, 'TOWPATH_DATA_DIR must not be empty').optional(),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
  MACHINE_REMOTE_CONTROL: flag('MACHINE_REMOTE_CONTROL').default(false),
});

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  lan: { host: string; port: number };
  winding: { host: string; port: number };
  dataDir: string;
  /** Folder holding the built renderer (index.html and assets). */
  rendererDir: string;
  logLevel: LogLevel;
  /** Machine-control routes on the LAN door answer non-loopback clients only when true. */
  machineRemoteControl: boolean;
}

export interface Platform {
  platform: NodeJS.Platform;
  home: string;
}

const hostPlatform: Platform = { platform: process.platform, home: homedir() };

/** Default folder for the built renderer: `dist/renderer` at the repository root. */
export const DEFAULT_RENDERER_DIR = join(import.meta.dirname, '..', 'dist', 'renderer');

/** The OS user-data folder for `towpath` (dashboard spec §18). */
export function defaultDataDir(env: Env, { platform, home }: Platform = hostPlatform): string {
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'towpath');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'towpath');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'towpath');
}

/**
 * Environment → typed configuration. Throws `ConfigError` naming the first bad variable and the
 * value it had, so start-up can print one line and exit 1.
 */
export function loadConfig(env: Env = process.env, platform: Platform = hostPlatform): Config {
  // Empty strings count as unset, as shells and .env files commonly leave them.
  const present = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`invalid ${name}=${JSON.stringify(env[name] ?? '')}: ${issue?.message}`);
  }
  const e = parsed.data;
  return {
    lan: { host: e.HOST ?? e.API_HOST ?? '0.0.0.0', port: e.PORT },
    winding: { host: e.WINDING_HOST, port: e.WINDING_PORT },
    dataDir: e.TOWPATH_DATA_DIR ?? defaultDataDir(env, platform),
    rendererDir: DEFAULT_RENDERER_DIR,
    logLevel: e.LOG_LEVEL,
    machineRemoteControl: e.MACHINE_REMOTE_CONTROL,
  };
}
