// `<data dir>/workstation.json`: how tools on this PC (the sidecar's machine_status MCP tool) find
// the running workstation. Written once both doors listen, with loopback URLs whatever HOST is;
// removed when the workstation stops. A file left by a workstation that died (its pid is gone) is
// stale: a new workstation replaces it and readers ignore it.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processExists } from './process-exists.ts';

export const WORKSTATION_FILE = 'workstation.json';

export interface WorkstationInfo {
  pid: number;
  /** The LAN door over loopback, e.g. `http://127.0.0.1:4001`. */
  lanUrl: string;
  /** The winding door over loopback, e.g. `http://127.0.0.1:8000`. */
  windingUrl: string;
  /** ISO 8601. */
  startedAt: string;
}

/** The URL of a door bound to `url`'s port as this PC reaches it over loopback. */
export function loopbackUrl(url: string): string {
  const parsed = new URL(url);
  // A door on IPv6 loopback only is not reachable at 127.0.0.1; every other address is.
  const host = parsed.hostname === '[::1]' ? '[::1]' : '127.0.0.1';
  return `${parsed.protocol}//${host}:${parsed.port}`;
}

function parse(text: string): WorkstationInfo | undefined {
  try {
    const value = JSON.parse(text) as Partial<WorkstationInfo> | null;
    if (
      typeof value?.pid === 'number' &&
      Number.isSafeInteger(value.pid) &&
      value.pid > 0 &&
      typeof value.lanUrl === 'string' &&
      typeof value.windingUrl === 'string' &&
      typeof value.startedAt === 'string'
    )
      return value as WorkstationInfo;
  } catch {
    // not JSON: as good as no file
  }
  return undefined;
}

/** The running workstation's file, or undefined when there is none, it is damaged or stale. */
export async function readWorkstationFile(dataDir: string): Promise<WorkstationInfo | undefined> {
  const text = await readFile(join(dataDir, WORKSTATION_FILE), 'utf8').catch(() => undefined);
  const info = text === undefined ? undefined : parse(text);
  return info && processExists(info.pid) ? info : undefined;
}

/**
 * Announces this workstation (mode 0600, written to a temporary file and renamed, so a reader never
 * sees half a file), replacing whatever file is there: a stale one, or one whose pid the OS has
 * since given to an unrelated process. Returns the function that removes the file again, if it is
 * still this process's.
 */
export async function announceWorkstation(
  dataDir: string,
  urls: { lan: string; winding: string },
  now = new Date(),
): Promise<() => Promise<void>> {
  const path = join(dataDir, WORKSTATION_FILE);
  const info: WorkstationInfo = {
    pid: process.pid,
    lanUrl: loopbackUrl(urls.lan),
    windingUrl: loopbackUrl(urls.winding),
    startedAt: now.toISOString(),
  };
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  await rename(temporary, path);
  return async () => {
    if ((await readWorkstationFile(dataDir))?.pid === process.pid) await rm(path, { force: true });
  };
}
