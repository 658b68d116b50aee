// The machine process: the one machine controller (serial port, Marlin host, job, events) and its
// door, in a process of its own so that nothing the core does (GraphQL, planning, validating a big
// `.wind`) delays an e-stop, and a job keeps running if the core exits, crashes or restarts.
// Started by a core (../spawn.ts) with `child_process.fork`, detached from the core's process
// group; it records itself in `<data dir>/machine.json` once its door listens and exits when no
// job has run and no core has been attached for IDLE_EXIT_MS.
//
// Options: --timings '<JSON>' overrides the Marlin host's protocol timings (tests).
import { parseArgs } from 'node:util';
import { isBusy } from '../../../engine/machine/contract.ts';
import type { HostTimings } from '../../../engine/machine/host.ts';
import { loadConfig } from '../../config/index.ts';
import { Door } from '../../http/door.ts';
import { createLogger } from '../../log.ts';
import { MachineController } from './controller.ts';
import { buildMachineDoor } from './door.ts';
import { EventLog } from './event-log.ts';
import { JobHistory } from './job-history.ts';
import { openMachineDatabase } from './machine-db.ts';
import { removeMachineFile, writeMachineFile } from './machine-file.ts';
import { applyMachinePriority } from './priority.ts';
import { ProfileStore } from './profiles.ts';

export const IDLE_EXIT_MS = 60_000;

const { values } = parseArgs({ options: { timings: { type: 'string' } } });
const timings = values.timings ? (JSON.parse(values.timings) as Partial<HostTimings>) : undefined;

// Its settings come from the environment the starting core gave it (../spawn.ts).
const config = loadConfig();
const logger = createLogger(config.logLevel).child({ process: 'machine' });
const dataDir = config.dataDir;
// Before the port opens: a job's round trips must never wait for the core's work (priority.ts).
const priority = await applyMachinePriority(config.machine.nice);
if (priority.problem) logger.warn({ priority }, priority.problem);
else logger.info({ priority }, 'machine process priority');
// Profiles and the job history; a job cut off by this process's predecessor dying is closed now,
// before any job of this one starts.
const database = openMachineDatabase(dataDir);
const profiles = new ProfileStore(database);
const history = new JobHistory(database);
const abandoned = history.closeAbandoned();
if (abandoned > 0) logger.warn({ jobs: abandoned }, 'jobs left running by a machine process that died');
const machine = new MachineController({ logger, history, ...(timings ? { timings } : {}) });
const events = new EventLog(dataDir);
machine.subscribe((event) => events.push(event));

/** Open events streams of cores, by a key of their own (one core may open more than one). */
const attached = new Map<symbol, { pid: number; origins: string[] }>();
let idleTimer: NodeJS.Timeout | undefined;
let stopping: Promise<void> | undefined;

function idle(): boolean {
  return attached.size === 0 && !isBusy(machine.status().state);
}

/** Starts the idle countdown when nothing holds the process, cancels it otherwise. */
function reconsider() {
  if (idle()) {
    idleTimer ??= setTimeout(() => {
      logger.info('no job and no core for 60 s: the machine process exits');
      void shutdown(0);
    }, IDLE_EXIT_MS);
  } else if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = undefined;
  }
}

machine.subscribe((event) => {
  if (event.type === 'state') reconsider();
});

const build = () =>
  buildMachineDoor({
    logger,
    machine,
    allowRemote: () => config.machineRemoteControl,
    allowedRoots: config.winding.allowedRoots,
    allowedHosts: config.allowedHosts,
    allowedOrigins: () => [...new Set([...attached.values()].flatMap((core) => core.origins))],
    profiles,
    history,
    attachments: {
      attach(pid, origins) {
        const key = Symbol(String(pid));
        attached.set(key, { pid, origins });
        reconsider();
        return () => {
          attached.delete(key);
          reconsider();
        };
      },
    },
    onRelease(pid) {
      for (const [key, core] of attached) if (core.pid === pid) attached.delete(key);
      // A core that stops on purpose while nothing runs takes the machine process with it.
      if (idle()) setImmediate(() => void shutdown(0));
    },
  });
let door = new Door('machine', config.machine, build);

/** Closes the door, ends a running job at the next line boundary, closes the port, then exits. */
function shutdown(code: number): Promise<void> {
  stopping ??= (async () => {
    if (idleTimer) clearTimeout(idleTimer);
    await door.stop().catch(() => {});
    await machine.close().catch(() => {});
    // The job's end has been written (machine.close waited for it); nothing writes after this.
    await new Promise((resolve) => setImmediate(resolve));
    database.close();
    await events.close();
    await removeMachineFile(dataDir, process.pid).catch(() => {});
    logger.info('machine process stopped');
    process.exit(code);
  })();
  return stopping;
}

process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
// Detached from the terminal and from the core: a hang-up or a lost IPC channel is not a reason to stop.
process.on('SIGHUP', () => {});
process.on('disconnect', () => {});
process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'machine process failed');
  events.closeNow();
  // machine.json stays: the core reads its pid as a process that ended unexpectedly.
  process.exit(70);
});

/** Listens on MACHINE_PORT; on any free port instead when the default one is taken and none was set. */
async function listen(): Promise<string> {
  try {
    return await door.start();
  } catch (error) {
    if (config.machine.portFixed || !/already in use/.test((error as Error).message)) throw error;
    logger.warn(`port ${config.machine.port} is in use: the machine door listens on a free port instead`);
    door = new Door('machine', { ...config.machine, port: 0 }, build);
    return door.start();
  }
}

try {
  const url = await listen();
  await writeMachineFile(dataDir, { pid: process.pid, url });
  logger.info({ url }, 'machine door listening');
  process.send?.({ type: 'ready', url });
  reconsider();
} catch (error) {
  logger.fatal({ err: error }, 'machine process could not start');
  process.send?.({ type: 'failed', message: (error as Error).message });
  events.closeNow();
  process.exit(1);
}
