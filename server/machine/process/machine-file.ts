// `<data dir>/machine.json`: where the running machine process listens. Written by the machine
// process once its door listens, removed when it exits on purpose; read by every core that starts
// on the data dir, by `towpath estop` and by the desktop app's e-stop. Node built-ins only: the
// e-stop paths load this and nothing else.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MACHINE_FILE, MACHINE_ROUTES, type MachineFile } from '../../../engine/machine/door.ts';

export function machineFilePath(dataDir: string): string {
  return join(dataDir, MACHINE_FILE);
}

function parse(text: string): MachineFile | null {
  try {
    const value = JSON.parse(text) as Partial<MachineFile>;
    if (!Number.isSafeInteger(value.pid) || typeof value.url !== 'string') return null;
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(value.url)) return null;
    return { pid: value.pid as number, url: value.url };
  } catch {
    return null;
  }
}

/** The recorded machine process, or null when there is none (or the file is not ours). */
export async function readMachineFile(dataDir: string): Promise<MachineFile | null> {
  try {
    return parse(await readFile(machineFilePath(dataDir), 'utf8'));
  } catch {
    return null;
  }
}

export function readMachineFileSync(dataDir: string): MachineFile | null {
  try {
    // node:fs as the CommonJS module, for `towpath estop`'s start-up (see postEmergencyStop).
    return parse(process.getBuiltinModule('node:fs').readFileSync(machineFilePath(dataDir), 'utf8'));
  } catch {
    return null;
  }
}

/** Written whole (temporary file, then rename) so a reader never sees half of it; mode 0600. */
export async function writeMachineFile(dataDir: string, record: MachineFile): Promise<void> {
  const temporary = join(dataDir, `.${MACHINE_FILE}.${randomBytes(6).toString('hex')}`);
  await writeFile(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, machineFilePath(dataDir));
}

/** Removes the file if it still names `pid` (a newer machine process may have replaced it). */
export async function removeMachineFile(dataDir: string, pid: number): Promise<void> {
  const current = await readMachineFile(dataDir);
  if (current?.pid === pid) await rm(machineFilePath(dataDir), { force: true });
}

/** True while a process with this id exists (ours or not: EPERM means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface EstopResult {
  /** False when no port was open to write M112 to. */
  sent: boolean;
  state: string;
}

/**
 * POSTs the e-stop to a machine door. node:http rather than fetch: the first fetch of a process
 * loads its HTTP client first, which costs a CLI started for one request tens of milliseconds. And
 * node:http as the CommonJS module rather than an ES import: building the ES namespace of node:http
 * reads its lazy WebSocket exports, which loads undici (measured: 68 ms instead of 41 ms for a
 * process that does nothing else).
 */
export function postEmergencyStop(url: string, timeoutMs = 2000): Promise<EstopResult> {
  const http = process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}${MACHINE_ROUTES.estop}`,
      {
        method: 'POST',
        // One request: no keep-alive socket to hold a CLI open after its answer.
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': 2 },
        timeout: timeoutMs,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('error', reject);
        response.on('end', () => {
          let body: { sent?: boolean; status?: { state?: string }; detail?: string } = {};
          try {
            body = JSON.parse(text);
          } catch {}
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300)
            reject(new Error(body.detail ?? `the machine door answered HTTP ${status}`));
          else resolve({ sent: body.sent === true, state: body.status?.state ?? 'unknown' });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end('{}');
  });
}
