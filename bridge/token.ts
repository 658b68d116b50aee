// Token resolution (spec §2), redone for every operation so a token regenerated in the task app
// is picked up without restarting an MCP server that an assistant keeps running.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { type BridgeEnv, homeOf, isUsableToken, userConfigDir } from './config.ts';

export type TokenSource = 'env' | 'file' | 'none';

export interface ResolvedToken {
  token: string | undefined;
  source: TokenSource;
  /** The file the token came from (shown by doctor; the value itself never is). */
  path?: string;
}

const TOKEN_FILE = 'local-rest-api-token';
const MAX_TOKEN_FILE = 4096;

export function tokenFileCandidates(env: BridgeEnv, platform: NodeJS.Platform = process.platform): string[] {
  const own = join(userConfigDir(env, platform), 'superProductivity', TOKEN_FILE);
  if (platform === 'win32' || platform === 'darwin') return [own];
  // Linux: the Flatpak and Snap packages keep their settings inside their sandboxes.
  const home = homeOf(env);
  return [
    own,
    join(
      home,
      '.var',
      'app',
      'com.super_productivity.SuperProductivity',
      'config',
      'superProductivity',
      TOKEN_FILE,
    ),
    join(home, 'snap', 'superproductivity', 'common', '.config', 'superProductivity', TOKEN_FILE),
  ];
}

function readUsableToken(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_TOKEN_FILE) return undefined;
    const buffer = Buffer.alloc(MAX_TOKEN_FILE + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    if (length > MAX_TOKEN_FILE) return undefined;
    const token = buffer.subarray(0, length).toString('utf8').trim();
    return token !== '' && isUsableToken(token) ? token : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function resolveToken(
  envToken: string | undefined,
  env: BridgeEnv,
  platform: NodeJS.Platform = process.platform,
): ResolvedToken {
  if (envToken !== undefined) return { token: envToken, source: 'env' };
  for (const path of tokenFileCandidates(env, platform)) {
    const token = readUsableToken(path);
    if (token !== undefined) return { token, source: 'file', path };
  }
  return { token: undefined, source: 'none' };
}
