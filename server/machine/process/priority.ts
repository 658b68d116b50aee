// The machine process's CPU priority (MACHINE_NICE). Every line of a job waits on this process for
// its round trip, so when a controller's `ok` arrives, whatever else the workstation runs (a core
// parsing GraphQL, planning, validating a big `.wind`) must give the CPU up at once.
//
// On Linux with autogroup scheduling (`kernel.sched_autogroup_enabled=1`, the default of most
// desktop kernels) the scheduler shares the CPU between sessions first and by nice only within a
// session, so a process's own nice does nothing against a busy core in another session: the
// session's autogroup nice (`/proc/self/autogroup`) is what counts. The machine process leads a
// session of its own (it is started detached), so raising its autogroup raises it alone. A process
// that does not lead its session never writes the autogroup: that would raise (or lower) the shell
// or desktop session that started it, and the setting would outlive the process.
import { readFile, writeFile } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/** Raising priority takes a capability or a limit; this says how to grant it. */
const howToGrant = (nice: number) =>
  `grant it with a nice limit for the user (limits.conf "<user> - nice ${nice}", systemd LimitNICE=${nice}) or CAP_SYS_NICE, or set MACHINE_NICE=0`;

export interface PriorityOutcome {
  /** The nice asked for (MACHINE_NICE); 0 leaves everything as it was. */
  requested: number;
  /** The main thread's nice afterwards. */
  thread: number;
  /**
   * The session's autogroup nice afterwards; null where autogroups do not apply: not Linux, a
   * kernel without them, or a process that does not lead its session (left alone on purpose).
   */
  autogroup: number | null;
  /** What stood in the way and what to do about it; absent when everything asked for was done. */
  problem?: string;
}

export interface PriorityHost {
  platform: NodeJS.Platform;
  pid: number;
  /** Reads a /proc file as text. */
  read(path: string): Promise<string>;
  write(path: string, text: string): Promise<void>;
  getPriority(): number;
  setPriority(nice: number): void;
  /** Waits before another try (the kernel allows one autogroup change in 100 ms without CAP_SYS_ADMIN). */
  pause(ms: number): Promise<void>;
}

export const systemPriorityHost: PriorityHost = {
  platform: process.platform,
  pid: process.pid,
  read: (path) => readFile(path, 'utf8'),
  write: (path, text) => writeFile(path, text),
  getPriority: () => getPriority(),
  setPriority: (nice) => setPriority(nice),
  pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const AUTOGROUP = '/proc/self/autogroup';
const AUTOGROUP_TRIES = 3;
const AUTOGROUP_RETRY_MS = 110;

/** Sets the calling process's main thread and, where it leads its session, its autogroup to `nice`. */
export async function applyMachinePriority(
  nice: number,
  host: PriorityHost = systemPriorityHost,
): Promise<PriorityOutcome> {
  const problems: string[] = [];
  if (nice !== 0) {
    try {
      host.setPriority(nice);
    } catch (error) {
      problems.push(`its nice stays ${host.getPriority()} (${reason(error)})`);
    }
  }
  let autogroup: number | null = null;
  if (host.platform === 'linux' && (await leadsSession(host))) {
    autogroup = await readAutogroupNice(host);
    if (autogroup !== null && nice !== 0 && autogroup !== nice) {
      const failure = await writeAutogroup(host, nice);
      if (failure) problems.push(`its session's autogroup nice stays ${autogroup} (${failure})`);
      autogroup = await readAutogroupNice(host);
    }
  }
  const outcome: PriorityOutcome = { requested: nice, thread: host.getPriority(), autogroup };
  if (problems.length > 0) {
    outcome.problem = `The machine process could not raise its CPU priority to nice ${nice}: ${problems.join('; ')}. A busy workstation can then slow a job's lines; ${howToGrant(nice)}.`;
  }
  return outcome;
}

/** Field 6 of stat(5), the session id, equals the pid only for a session leader. */
async function leadsSession(host: PriorityHost): Promise<boolean> {
  try {
    const stat = await host.read('/proc/self/stat');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]) === host.pid;
  } catch {
    return false;
  }
}

/** `/autogroup-123 nice -5` → -5; null for the root autogroup (an empty file) or a kernel without them. */
async function readAutogroupNice(host: PriorityHost): Promise<number | null> {
  try {
    const match = /\bnice (-?\d+)/.exec(await host.read(AUTOGROUP));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

async function writeAutogroup(host: PriorityHost, nice: number): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      await host.write(AUTOGROUP, String(nice));
      return undefined;
    } catch (error) {
      const busy = (error as NodeJS.ErrnoException).code === 'EAGAIN';
      if (!busy || attempt === AUTOGROUP_TRIES) return reason(error);
      await host.pause(AUTOGROUP_RETRY_MS);
    }
  }
}

function reason(error: unknown): string {
  // os.setPriority throws ERR_SYSTEM_ERROR with the errno name in `info.code`.
  const failure = error as NodeJS.ErrnoException & { info?: { code?: string } };
  const code = failure.info?.code ?? failure.code;
  if (code === 'EPERM' || code === 'EACCES') return 'permission denied';
  return code ?? (error as Error).message;
}
