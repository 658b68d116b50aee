// The bridge's whole environment, read in this one module (spec §2). Everything else receives a
// BridgeEnv, so tests can hand the CLI, the MCP server and doctor any environment in-process.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { invalidField } from './errors.ts';

export interface BridgeEnv {
  TASK_HOST_URL?: string | undefined;
  TASK_HOST_TOKEN?: string | undefined;
  TASK_HOST_TIMEOUT_MS?: string | undefined;
  HOME?: string | undefined;
  XDG_CONFIG_HOME?: string | undefined;
  APPDATA?: string | undefined;
  CODEX_HOME?: string | undefined;
  TZ?: string | undefined;
}

/** The bridge's variables out of a whole environment (the process's, or the core's config). */
export function bridgeEnvOf(env: Readonly<Record<string, string | undefined>>): BridgeEnv {
  return {
    TASK_HOST_URL: env.TASK_HOST_URL,
    TASK_HOST_TOKEN: env.TASK_HOST_TOKEN,
    TASK_HOST_TIMEOUT_MS: env.TASK_HOST_TIMEOUT_MS,
    HOME: env.HOME,
    XDG_CONFIG_HOME: env.XDG_CONFIG_HOME,
    APPDATA: env.APPDATA,
    CODEX_HOME: env.CODEX_HOME,
    TZ: env.TZ,
  };
}

export function readProcessEnv(): BridgeEnv {
  return bridgeEnvOf(process.env);
}

export const DEFAULT_HOST_URL = 'http://127.0.0.1:3876';
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface HostSettings {
  url: string;
  /** The token from TASK_HOST_TOKEN, if set; the token file is consulted per request instead. */
  envToken: string | undefined;
  timeoutMs: number;
}

const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export function isUsableToken(text: string): boolean {
  return TOKEN_CHARS.test(text);
}

export function parseHostUrl(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_HOST_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidField('TASK_HOST_URL', 'must be an http: or https: URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidField('TASK_HOST_URL', 'must be an http: or https: URL');
  if (url.username || url.password) throw invalidField('TASK_HOST_URL', 'must not contain credentials');
  if (url.search || url.hash || raw.includes('?') || raw.includes('#'))
    throw invalidField('TASK_HOST_URL', 'must not contain a query or fragment');
  if (url.pathname !== '/') throw invalidField('TASK_HOST_URL', 'must not contain a path');
  return `${url.protocol}//${url.host}`;
}

export function parseHostSettings(env: BridgeEnv): HostSettings {
  const url = parseHostUrl(env.TASK_HOST_URL);
  const token = env.TASK_HOST_TOKEN?.trim() ?? '';
  if (token !== '' && !isUsableToken(token))
    throw invalidField('TASK_HOST_TOKEN', 'must contain only printable ASCII characters without spaces');
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  const rawTimeout = env.TASK_HOST_TIMEOUT_MS;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    timeoutMs = /^[0-9]{1,7}$/.test(rawTimeout) ? Number(rawTimeout) : 0;
    if (timeoutMs < 1 || timeoutMs > 600_000)
      throw invalidField('TASK_HOST_TIMEOUT_MS', 'must be an integer from 1 to 600000');
  }
  return { url, envToken: token === '' ? undefined : token, timeoutMs };
}

export function homeOf(env: BridgeEnv): string {
  return env.HOME || homedir();
}

/** The folder desktop apps keep their settings in: the task app's token and MCP clients' files. */
export function userConfigDir(env: BridgeEnv, platform: NodeJS.Platform): string {
  const home = homeOf(env);
  if (platform === 'win32') return env.APPDATA || join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || join(home, '.config');
}
