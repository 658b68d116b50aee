// Finds the data dir's running machine process through `<data dir>/machine.json`, or starts one:
// race-free (one starter at a time per data dir, through an exclusive lock file a dead starter's
// successor moves aside), its output appended to a rotated log in the data dir, and ready once it
// says so over the fork's channel. The core's link (link.ts) then attaches to what this found.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { MachineFile } from '../../engine/machine/contract.ts';
import type { HostTimings } from '../../engine/machine/host.ts';
import { StartupError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { processExists } from '../process-exists.ts';
import { readMachineFile } from './process/machine-file.ts';

/** How long a core waits for a machine process to start (or for another core to start it). */
const START_TIMEOUT_MS = 60_000;
/** How often a core waiting on another core's start looks again. */
const POLL_MS = 50;
const LOG_FILE = 'machine-process.log';
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
const LOCK_FILE = 'machine.lock';

/** The machine process's settings (it reads them from its environment, as config.ts does). */
export interface MachineProcessSettings {
  port: number;
  /** MACHINE_PORT was set: the machine process must listen there or fail. */
  portFixed?: boolean;
  remoteControl: boolean;
  allowedRoots: string[];
  logLevel: string;
  /** MACHINE_NICE; the machine process's own default when not given. */
  nice?: number;
}

export interface FindOrStartOptions {
  dataDir: string;
  logger: Logger;
  settings: MachineProcessSettings;
  /** Protocol timings for a machine process started here (tests shorten them). */
  timings?: Partial<HostTimings> | undefined;
  /** The machine process's entry point; `machineEntryPath()` by default. */
  entry?: string | undefined;
  /** True once the caller gave up: waiting stops with a StartupError. */
  abandoned: () => boolean;
  /** Told of a machine process forked here, before it is ready (so a start given up can end it). */
  forked: (child: ChildProcess) => void;
}

/**
 * The machine process's entry. In a checkout: its bundle, dist/cli/machine.mjs (scripts/build-cli.ts),
 * which starts in a fraction of the time of the sources it replaces and runs them instead itself
 * when any has changed since it was built; the .ts source when there is no bundle. Beside the
 * Electron bundle: `machine.js`.
 */
export function machineEntryPath(): string {
  const source = fileURLToPath(new URL('./process/entry.ts', import.meta.url));
  if (existsSync(source)) {
    const bundle = fileURLToPath(new URL('../../dist/cli/machine.mjs', import.meta.url));
    return existsSync(bundle) ? bundle : source;
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'machine.js');
}

/** The data dir's machine process, found alive and answering or started (not attached yet). */
export async function findOrStartMachineProcess(options: FindOrStartOptions): Promise<MachineFile> {
  const { dataDir } = options;
  const deadline = Date.now() + START_TIMEOUT_MS;
  const lock = join(dataDir, LOCK_FILE);
  while (Date.now() < deadline) {
    if (options.abandoned()) throw new StartupError('the start was abandoned');
    const running = await runningRecord(dataDir);
    if (running) return running;
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(lock, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another core is starting it: wait for its machine.json, unless that core died meanwhile.
      const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(holder) && holder > 0 && !processExists(holder)) {
        // A stale lock: moved aside by exactly one of the cores that found it.
        await rename(lock, `${lock}.stale-${process.pid}`)
          .then(() => rm(`${lock}.stale-${process.pid}`, { force: true }))
          .catch(() => {});
      } else await delay(POLL_MS);
      continue;
    }
    try {
      await handle.writeFile(String(process.pid));
      await handle.close();
      // Someone may have finished starting one between the check and the lock.
      return (await runningRecord(dataDir)) ?? (await spawn(options));
    } finally {
      await rm(lock, { force: true });
    }
  }
  throw new StartupError(
    'the machine process did not start within 60 s (see machine-process.log in the data dir)',
  );
}

/** The recorded machine process, if it is alive and its door answers. */
async function runningRecord(dataDir: string): Promise<MachineFile | undefined> {
  const record = await readMachineFile(dataDir);
  if (!record || !processExists(record.pid)) return undefined;
  try {
    const response = await fetch(`${record.url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok ? record : undefined;
  } catch {
    return undefined;
  }
}

async function spawn(options: FindOrStartOptions): Promise<MachineFile> {
  const { dataDir, settings, timings } = options;
  const log = join(dataDir, LOG_FILE);
  const size = await stat(log).then(
    (s) => s.size,
    () => 0,
  );
  if (size > LOG_ROTATE_BYTES) await rename(log, `${log}.1`).catch(() => {});
  const output = await open(log, 'a', 0o600);
  // Only what it needs: the core's secrets (JWT, pepper, keys) have no business in the machine process.
  const temp = tmpdir();
  const env: NodeJS.ProcessEnv = {
    TMPDIR: temp,
    TEMP: temp,
    TMP: temp,
    TOWPATH_DATA_DIR: dataDir,
    ...(settings.portFixed === false ? {} : { MACHINE_PORT: String(settings.port) }),
    MACHINE_REMOTE_CONTROL: settings.remoteControl ? '1' : '0',
    WINDING_ALLOWED_ROOTS: settings.allowedRoots.join(process.platform === 'win32' ? ';' : ':'),
    LOG_LEVEL: settings.logLevel,
    ...(settings.nice === undefined ? {} : { MACHINE_NICE: String(settings.nice) }),
  };
  // Electron's own binary runs the entry as plain Node (see README: utilityProcess would end with the app).
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  let child: ChildProcess;
  try {
    child = fork(options.entry ?? machineEntryPath(), timings ? ['--timings', JSON.stringify(timings)] : [], {
      // Its own process group: a Ctrl-C or a SIGKILL of the core does not reach it.
      detached: true,
      stdio: ['ignore', output.fd, output.fd, 'ipc'],
      env,
      execArgv: [],
    });
  } finally {
    await output.close();
  }
  options.forked(child);
  const record = await new Promise<MachineFile>((resolve, reject) => {
    child.once('message', (message: { type?: string; url?: string; message?: string }) => {
      if (message.type === 'ready' && message.url && child.pid) resolve({ pid: child.pid, url: message.url });
      else
        reject(
          new StartupError(`the machine process could not start: ${message.message ?? 'no reason given'}`),
        );
    });
    child.once('exit', (code, signal) =>
      reject(
        new StartupError(
          `the machine process exited while starting (${signal ?? `code ${code}`}); see ${log}`,
        ),
      ),
    );
    child.once('error', (error) =>
      reject(new StartupError(`the machine process could not start: ${error.message}`)),
    );
  });
  // From here on the two processes live apart: no channel, no reference keeping the core alive.
  child.disconnect();
  child.unref();
  options.logger.info({ pid: record.pid, url: record.url }, 'started the machine process');
  return record;
}
