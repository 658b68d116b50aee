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

export interface EstopResult {
  /** False when no port was open to write M112 to. */
  sent: boolean;
  state: string;
}

/**
 * POSTs the e-stop to a machine door: one HTTP/1.1 request written by hand on a node:net socket.
 * Not fetch (the first fetch of a process loads undici: tens of ms for a CLI started for one
 * request), and not node:http either: its client, agent and parser cost `towpath estop` 5 ms more
 * start-up than node:net does (measured: 35 against 30 ms for a process that loads nothing else).
 * The door answers with a Content-Length and closes the connection, as the request asks.
 */
export function postEmergencyStop(url: string, timeoutMs = 2000): Promise<EstopResult> {
  const { host, hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = process.getBuiltinModule('node:net').connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.write(
      `POST ${MACHINE_ROUTES.estop} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (error: Error | null, result?: EstopResult) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve(result as EstopResult);
    };
    const answer = (ended: boolean) => {
      const response = parseResponse(received, ended);
      if (response === undefined) return;
      if (response instanceof Error) return settle(response);
      let body: { sent?: boolean; status?: { state?: string }; detail?: string } = {};
      try {
        body = JSON.parse(response.body);
      } catch {}
      if (response.status < 200 || response.status >= 300)
        settle(new Error(body.detail ?? `the machine door answered HTTP ${response.status}`));
      else settle(null, { sent: body.sent === true, state: body.status?.state ?? 'unknown' });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      answer(false);
    });
    socket.on('end', () => answer(true));
    socket.on('error', (error) => settle(error));
    socket.on('close', () => settle(new Error('the machine door closed the connection without an answer')));
  });
}

/**
 * A whole HTTP/1.1 response: its status and body (Content-Length or chunked, else up to the end of
 * the connection); undefined while more is to come, an Error for something that is not one.
 */
export function parseResponse(
  bytes: Buffer,
  ended: boolean,
): { status: number; body: string } | Error | undefined {
  // More is to come, unless the connection ended: then it never will.
  const incomplete = () => (ended ? new Error('the machine door sent no complete answer') : undefined);
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return incomplete();
  const [statusLine = '', ...fields] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status) return new Error('the machine door did not answer in HTTP');
  const header = (name: string) =>
    fields
      .find((field) => field.slice(0, field.indexOf(':')).trim().toLowerCase() === name)
      ?.split(':')
      .slice(1)
      .join(':')
      .trim();
  let rest = bytes.subarray(headEnd + 4);
  if (/\bchunked\b/i.test(header('transfer-encoding') ?? '')) {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) return incomplete();
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) return new Error('the machine door sent a malformed chunk');
      if (size === 0) {
        // The last chunk, then (trailers and) an empty line.
        if (rest.indexOf('\r\n\r\n', lineEnd) !== -1) break;
        return incomplete();
      }
      if (rest.length < lineEnd + 2 + size + 2) return incomplete();
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    return { status: Number(status[1]), body: Buffer.concat(parts).toString('utf8') };
  }
  const length = header('content-length');
  if (length !== undefined) {
    const wanted = Number(length);
    if (!Number.isSafeInteger(wanted) || wanted < 0)
      return new Error('the machine door sent a malformed length');
    if (rest.length < wanted) return incomplete();
    return { status: Number(status[1]), body: rest.subarray(0, wanted).toString('utf8') };
  }
  return ended ? { status: Number(status[1]), body: rest.toString('utf8') } : undefined;
}
