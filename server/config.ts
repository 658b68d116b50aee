// The one place that reads the environment. Everything else receives a typed `Config`.
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { type BridgeEnv, bridgeEnvOf, parseHostSettings } from '../bridge/config.ts';
import { BridgeError } from '../bridge/errors.ts';
import { INVALID_EMAIL, isValidEmail, normaliseEmail } from './auth/email.ts';
import { isStrongPassword, WEAK_PASSWORD } from './auth/password-policy.ts';
import { defaultDataDir, type Env, hostPlatform, type Platform } from './data-dir-default.ts';
import { EgressConfigError } from './gateway/egress.ts';
import { type GatewaySettings, readGatewaySettings } from './gateway/settings.ts';
import { DEFAULT_TRUSTED_PROXIES, parseProxyRange } from './http/client-address.ts';

export { defaultDataDir, type Env, type Platform };

/** A configuration problem the user can fix; its message is one clear line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** What the core's terminal shows: one line per notable event for a person, or the JSON log for a service. */
const LOG_FORMATS = ['human', 'json'] as const;

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

/** An origin people on the LAN reach the workstation at: http(s), no credentials, path or query. */
const publicUrl = z
  .string()
  .trim()
  .refine((text) => {
    try {
      const url = new URL(text);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        url.username === '' &&
        url.password === '' &&
        url.pathname === '/' &&
        url.search === '' &&
        url.hash === ''
      );
    } catch {
      return false;
    }
  }, 'PUBLIC_URL must be an http(s) origin such as http://winder.local:4001, without a path')
  .transform((text) => new URL(text).origin);

const envSchema = z.object({
  HOST: host('HOST').optional(),
  PUBLIC_URL: publicUrl.optional(),
  API_HOST: host('API_HOST').optional(),
  PORT: port('PORT').default(4001),
  WINDING_HOST: host('WINDING_HOST').default('127.0.0.1'),
  WINDING_PORT: port('WINDING_PORT').default(8000),
  WINDING_ALLOWED_ROOTS: z.string().optional(),
  TOWPATH_DATA_DIR: z.string().trim().min(1, 'TOWPATH_DATA_DIR must not be empty').optional(),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
  LOG_FORMAT: z
    .enum(LOG_FORMATS, { error: `LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}` })
    .default('human'),
  MACHINE_REMOTE_CONTROL: flag('MACHINE_REMOTE_CONTROL').default(false),
  MACHINE_PORT: port('MACHINE_PORT').default(8002),
  MACHINE_NICE: z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'MACHINE_NICE must be an integer between -20 and 19')
    .transform(Number)
    .refine((n) => n >= -20 && n <= 19, 'MACHINE_NICE must be an integer between -20 and 19')
    .default(-10),
  TOWPATH_EXIT_WITH_PARENT: flag('TOWPATH_EXIT_WITH_PARENT').default(true),
  ALLOWED_HOSTS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== ''),
    )
    .refine(
      (names) => names.every((name) => /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/.test(name)),
      'ALLOWED_HOSTS must be comma-separated host names without ports',
    )
    .default([]),
});

export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The five secrets of dashboard spec §18: from the environment, else `<data dir>/secrets.json`. */
export const SECRET_NAMES = [
  'JWT_SECRET',
  'JWT_GATEWAY_SECRET',
  'TOKEN_PEPPER',
  'CREDENTIAL_ENCRYPTION_KEY',
  'GATEWAY_SERVICE_TOKEN',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/** Settings of the dashboard API (spec §18), already validated and clamped. */
export interface ApiConfig {
  jwtExpirationSeconds: number;
  /** `CREATE_ADMIN=true`: the bootstrap admin (email normalised, password strong). */
  bootstrapAdmin: { email: string; password: string } | null;
  /** 0 = unlimited. */
  userLimit: number;
  login: { maxAttempts: number; ipMaxAttempts: number; windowSeconds: number; lockSeconds: number };
  trustProxyHops: number;
  /** `TRUSTED_PROXIES`: IPs or CIDR ranges whose `X-Forwarded-For` is believed (§5.6). */
  trustedProxies: string[];
  datasource: {
    mintUserPerMinute: number;
    mintPublicIpPerMinute: number;
    mintShareTokenPerMinute: number;
    sessionTtlSeconds: number;
  };
  gateway: {
    introspectionPerMinute: number;
    revokedTokensPerMinute: number;
    revokedTokensMaxBatch: number;
    runtimeMetricsUrl: string | null;
  };
  revokeEventRetentionSeconds: number;
  policyEditLock: boolean;
  graphiql: boolean;
  corsOrigins: string[];
  /** Secrets given in the environment; the rest come from secrets.json (server/secrets.ts). */
  configuredSecrets: Partial<Record<SecretName, string>>;
}

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
}

/** Default folder of shipped files: `resources` at the repository root. */
export const DEFAULT_RESOURCES_DIR = join(import.meta.dirname, '..', 'resources');

/** Default folder for the built renderer: `dist/renderer` at the repository root. */
export const DEFAULT_RENDERER_DIR = join(import.meta.dirname, '..', 'dist', 'renderer');

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
    publicUrl: e.PUBLIC_URL ?? null,
    winding: {
      host: e.WINDING_HOST,
      port: e.WINDING_PORT,
      allowedRoots: allowedRoots(e.WINDING_ALLOWED_ROOTS, platform),
    },
    dataDir: e.TOWPATH_DATA_DIR ?? defaultDataDir(env, platform),
    rendererDir: DEFAULT_RENDERER_DIR,
    resourcesDir: DEFAULT_RESOURCES_DIR,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    machineRemoteControl: e.MACHINE_REMOTE_CONTROL,
    machine: {
      host: '127.0.0.1',
      port: e.MACHINE_PORT,
      portFixed: 'MACHINE_PORT' in present,
      nice: e.MACHINE_NICE,
    },
    exitWithParent: e.TOWPATH_EXIT_WITH_PARENT,
    allowedHosts: e.ALLOWED_HOSTS,
    tasks: taskHostEnv(env),
    ...loadApiConfig(env),
  };
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

/**
 * The dashboard API's variables. Their rules differ from zod's usual shape (out-of-range integers are
 * clamped with a warning, secrets are never echoed), so they are read by hand.
 */
function loadApiConfig(env: Env): { api: ApiConfig; warnings: string[]; realtimeGateway: GatewaySettings } {
  const warnings: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw))
      throw new ConfigError(`invalid ${name}=${JSON.stringify(raw)}: ${name} must be an integer`);
    return clamp(name, Number(raw), min, max, warnings);
  };
  const bool = (name: string): boolean => {
    const raw = value(name)?.toLowerCase();
    if (raw === undefined) return false;
    if (!['1', 'true', '0', 'false'].includes(raw)) {
      throw new ConfigError(`invalid ${name}=${JSON.stringify(raw)}: ${name} must be 1, true, 0 or false`);
    }
    return raw === '1' || raw === 'true';
  };

  const hopsRaw = value('API_TRUST_PROXY_HOPS');
  if (hopsRaw !== undefined && (!/^\d+$/.test(hopsRaw) || Number(hopsRaw) > 16)) {
    throw new ConfigError(
      `invalid API_TRUST_PROXY_HOPS=${JSON.stringify(hopsRaw)}: API_TRUST_PROXY_HOPS must be an integer between 0 and 16`,
    );
  }

  const proxiesRaw = value('TRUSTED_PROXIES');
  const trustedProxies =
    proxiesRaw === undefined
      ? [...DEFAULT_TRUSTED_PROXIES]
      : proxiesRaw
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '');
  const badProxy = trustedProxies.find((entry) => parseProxyRange(entry) === null);
  if (badProxy !== undefined || trustedProxies.length === 0) {
    throw new ConfigError(
      `invalid TRUSTED_PROXIES=${JSON.stringify(proxiesRaw)}: TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (${JSON.stringify(badProxy ?? '')} is neither)`,
    );
  }

  let bootstrapAdmin: ApiConfig['bootstrapAdmin'] = null;
  if (bool('CREATE_ADMIN')) {
    const email = value('ADMIN_EMAIL');
    const password = env.ADMIN_PASSWORD;
    if (email === undefined) throw new ConfigError('CREATE_ADMIN=true needs ADMIN_EMAIL');
    if (password === undefined || password === '')
      throw new ConfigError('CREATE_ADMIN=true needs ADMIN_PASSWORD');
    const normalised = normaliseEmail(email);
    if (!isValidEmail(normalised)) {
      throw new ConfigError(`invalid ADMIN_EMAIL=${JSON.stringify(email)}: ${INVALID_EMAIL}`);
    }
    // The password itself is never echoed.
    if (!isStrongPassword(password)) throw new ConfigError(`ADMIN_PASSWORD is too weak: ${WEAK_PASSWORD}`);
    bootstrapAdmin = { email: normalised, password };
  }

  const configuredSecrets: Partial<Record<SecretName, string>> = {};
  for (const name of SECRET_NAMES) {
    const secret = env[name];
    if (secret === undefined || secret === '') continue;
    checkSecret(name, secret);
    configuredSecrets[name] = secret;
  }
  if (
    configuredSecrets.JWT_SECRET !== undefined &&
    configuredSecrets.JWT_SECRET === configuredSecrets.JWT_GATEWAY_SECRET
  ) {
    throw new ConfigError('JWT_GATEWAY_SECRET must differ from JWT_SECRET');
  }

  const metricsUrl = value('GATEWAY_RUNTIME_METRICS_URL');
  if (metricsUrl !== undefined && !isHttpUrl(metricsUrl)) {
    throw new ConfigError(
      `invalid GATEWAY_RUNTIME_METRICS_URL=${JSON.stringify(metricsUrl)}: GATEWAY_RUNTIME_METRICS_URL must be an http(s) URL`,
    );
  }

  const graphiqlRaw = value('GRAPHIQL');
  const api: ApiConfig = {
    jwtExpirationSeconds: duration('JWT_TIME_EXPIRATION', value('JWT_TIME_EXPIRATION'), warnings),
    bootstrapAdmin,
    userLimit: int('USER_LIMIT', 0, 0, Number.MAX_SAFE_INTEGER),
    login: {
      maxAttempts: int('AUTH_LOGIN_MAX_ATTEMPTS', 5, 1, 10_000),
      ipMaxAttempts: int('AUTH_LOGIN_IP_MAX_ATTEMPTS', 20, 1, 10_000),
      windowSeconds: int('AUTH_LOGIN_WINDOW_SECONDS', 300, 1, 86_400),
      lockSeconds: int('AUTH_LOGIN_LOCK_SECONDS', 300, 1, 86_400),
    },
    trustProxyHops: hopsRaw === undefined ? 0 : Number(hopsRaw),
    trustedProxies,
    datasource: {
      mintUserPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_USER_PER_MIN', 60, 1, 10_000),
      mintPublicIpPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_PUBLIC_IP_PER_MIN', 30, 1, 10_000),
      mintShareTokenPerMinute: int('DATASOURCE_TOKEN_MINT_RATE_LIMIT_SHARE_TOKEN_PER_MIN', 60, 1, 10_000),
      sessionTtlSeconds: int('DATASOURCE_SESSION_TTL_SECONDS', 300, 60, 3600),
    },
    gateway: {
      introspectionPerMinute: int('GATEWAY_INTROSPECTION_RATE_LIMIT_PER_MIN', 600, 1, 100_000),
      revokedTokensPerMinute: int('GATEWAY_REVOKED_TOKENS_RATE_LIMIT_PER_MIN', 600, 1, 100_000),
      revokedTokensMaxBatch: int('GATEWAY_REVOKED_TOKENS_MAX_BATCH', 500, 1, 5000),
      runtimeMetricsUrl: metricsUrl ?? null,
    },
    revokeEventRetentionSeconds: int(
      'REALTIME_REVOKE_EVENT_RETENTION_SECONDS',
      86_400,
      60,
      Number.MAX_SAFE_INTEGER,
    ),
    policyEditLock: bool('POLICY_EDIT_LOCK'),
    graphiql: graphiqlRaw === '1',
    corsOrigins: (value('CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
    configuredSecrets,
  };
  let realtimeGateway: GatewaySettings;
  try {
    realtimeGateway = readGatewaySettings({ value, int, bool });
  } catch (error) {
    if (error instanceof EgressConfigError) throw new ConfigError(error.message);
    throw error;
  }
  return { api, warnings, realtimeGateway };
}

function clamp(name: string, n: number, min: number, max: number, warnings: string[]): number {
  if (n >= min && n <= max) return n;
  const clamped = Math.min(max, Math.max(min, n));
  warnings.push(`${name}=${n} is out of range (${min}–${max}); using ${clamped}`);
  return clamped;
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `JWT_TIME_EXPIRATION`: integer seconds or `<n>s/m/h/d`, 60 s–30 d (clamped). */
function duration(name: string, raw: string | undefined, warnings: string[]): number {
  if (raw === undefined) return 7200;
  const match = /^(\d+)([smhd]?)$/.exec(raw);
  if (!match) {
    throw new ConfigError(
      `invalid ${name}=${JSON.stringify(raw)}: ${name} must be seconds or a number followed by s, m, h or d`,
    );
  }
  const seconds = Number(match[1]) * (DURATION_UNITS[match[2] || 's'] ?? 1);
  return clamp(name, seconds, 60, 30 * 86_400, warnings);
}

/** Rules every configured secret must meet; also applied to values read from secrets.json. */
export function checkSecret(name: SecretName, secret: string): void {
  if (name === 'CREDENTIAL_ENCRYPTION_KEY') {
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret) || decodeBase64(secret).length !== 32) {
      throw new ConfigError('CREDENTIAL_ENCRYPTION_KEY must be 32 bytes encoded as base64');
    }
    return;
  }
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < 32) throw new ConfigError(`${name} must be at least 32 bytes (got ${bytes})`);
}

/** Accepts standard base64 and base64url, padded or not. */
export function decodeBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
