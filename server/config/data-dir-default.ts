// Where the data dir is when TOWPATH_DATA_DIR does not say: the configuration's zod-free part,
// kept free of everything else so that `towpath estop` starts in a few milliseconds. node:os as the
// CommonJS module: an ES import of it builds its whole namespace, which loads more than this file
// needs (measured: 6 ms of a 30 ms process start).
import { join, resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

export interface Platform {
  platform: NodeJS.Platform;
  home: string;
}

export const hostPlatform: Platform = {
  platform: process.platform,
  home: process.getBuiltinModule('node:os').homedir(),
};

/** The OS user-data folder for `towpath` (dashboard spec §18). */
export function defaultDataDir(env: Env, { platform, home }: Platform = hostPlatform): string {
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'towpath');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'towpath');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'towpath');
}

/** The data dir as loadConfig would choose it (TOWPATH_DATA_DIR, else the OS default). */
export function dataDirOf(env?: Env, platform: Platform = hostPlatform): string {
  // biome-ignore lint/style/noProcessEnv: this is the configuration's zod-free part (see above).
  const from = env ?? process.env;
  const configured = from.TOWPATH_DATA_DIR?.trim();
  return resolve(configured ? configured : defaultDataDir(from, platform));
}
