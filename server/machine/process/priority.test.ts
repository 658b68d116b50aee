// MACHINE_NICE: the machine process raises its main thread and, when it leads its session, its
// session's autogroup; it never touches the autogroup of a session it does not lead. First against
// real processes and the real kernel interface, then the failure paths through a stand-in for
// /proc and setpriority (a kernel that refuses, or is busy, cannot be arranged on demand).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { autogroupNice, mayRaiseTo } from '../../testing/nice.ts';
import { applyMachinePriority, type PriorityHost, type PriorityOutcome } from './priority.ts';

const MODULE = fileURLToPath(new URL('./priority.ts', import.meta.url));
const NICE = fileURLToPath(new URL('../../testing/nice.ts', import.meta.url));
const linux = process.platform === 'linux';

/**
 * Runs applyMachinePriority(nice) in a child; it prints the outcome and its own autogroup nice, read
 * from /proc/self/autogroup by the tests' helper: null where that file is empty (the root autogroup:
 * init's session, as under a CI runner that never called setsid) or missing (no autogroups).
 */
function inChild(nice: number, detached: boolean) {
  const code = `
    import { applyMachinePriority } from ${JSON.stringify(MODULE)};
    import { autogroupNice } from ${JSON.stringify(NICE)};
    const outcome = await applyMachinePriority(${nice});
    process.stdout.write(JSON.stringify({ outcome, autogroup: autogroupNice('self') }));`;
  return new Promise<{ outcome: PriorityOutcome; autogroup: number | null }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      detached,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.once('error', reject);
    child.once('exit', (status) =>
      status === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${status}: ${err}`)),
    );
  });
}

const ownAutogroup = () => autogroupNice('self');

describe.runIf(linux)('the machine process priority, on this kernel', () => {
  it('raises the thread and the autogroup of a process that leads its own session', async () => {
    const { outcome, autogroup } = await inChild(-3, true);
    // A new session always has an autogroup of its own, unless the kernel has none at all.
    const expected = (nice: number) => (autogroup === null ? null : nice);
    if (mayRaiseTo(-3)) {
      expect(outcome).toEqual({ requested: -3, thread: -3, autogroup: expected(-3) });
      expect(autogroup).toBe(expected(-3));
    } else {
      expect(outcome).toMatchObject({ requested: -3, thread: 0, autogroup: expected(0) });
      expect(outcome.problem).toMatch(/permission denied.*MACHINE_NICE=0/);
      expect(autogroup).toBe(expected(0));
    }
  });

  it("leaves the autogroup of a session it does not lead alone (the caller's shell keeps its share)", async () => {
    const before = ownAutogroup();
    const { outcome, autogroup } = await inChild(-4, false);
    expect(outcome.autogroup).toBeNull();
    expect(autogroup).toBe(before);
    expect(ownAutogroup()).toBe(before);
    expect(outcome.thread).toBe(mayRaiseTo(-4) ? -4 : 0);
  });

  it('changes nothing for MACHINE_NICE=0', async () => {
    const { outcome, autogroup } = await inChild(0, true);
    const expected = autogroup === null ? null : 0;
    expect(outcome).toEqual({ requested: 0, thread: 0, autogroup: expected });
    expect(autogroup).toBe(expected);
  });
});

/** /proc and setpriority as a kernel would answer them, with the refusals a test cannot arrange. */
function fakeKernel(options: {
  session?: number;
  comm?: string;
  refuse?: string[];
  busyWrites?: number;
  /** /proc/self/autogroup is empty for the root autogroup, and missing without CONFIG_SCHED_AUTOGROUP. */
  autogroupFile?: 'empty' | 'missing';
}) {
  const state = { thread: 0, autogroup: 0, writes: [] as string[], pauses: 0 };
  let busy = options.busyWrites ?? 0;
  const errno = (code: string) => Object.assign(new Error(code), { code });
  const host: PriorityHost = {
    platform: 'linux',
    pid: 4242,
    read: async (path) => {
      if (path === '/proc/self/stat')
        return `4242 (${options.comm ?? 'node'}) S 1 4242 ${options.session ?? 4242} 0 -1 4194560 0\n`;
      if (path === '/proc/self/autogroup' && options.autogroupFile === 'empty') return '';
      if (path === '/proc/self/autogroup' && options.autogroupFile !== 'missing')
        return `/autogroup-77 nice ${state.autogroup}\n`;
      throw errno('ENOENT');
    },
    write: async (path, text) => {
      state.writes.push(path);
      if (options.refuse?.includes('autogroup')) throw errno('EPERM');
      if (busy-- > 0) throw errno('EAGAIN');
      state.autogroup = Number(text);
    },
    getPriority: () => state.thread,
    setPriority: (nice) => {
      if (options.refuse?.includes('thread'))
        throw Object.assign(new Error('A system error occurred'), {
          code: 'ERR_SYSTEM_ERROR',
          info: { code: 'EACCES' },
        });
      state.thread = nice;
    },
    pause: async () => {
      state.pauses++;
    },
  };
  return { host, state };
}

describe('the machine process priority, through a stand-in kernel', () => {
  it('finds the session id after a command name with spaces and parentheses', async () => {
    const { host, state } = fakeKernel({ comm: 'node (machine) x' });
    expect(await applyMachinePriority(-10, host)).toEqual({ requested: -10, thread: -10, autogroup: -10 });
    expect(state.writes).toEqual(['/proc/self/autogroup']);
  });

  it('never writes the autogroup of a session led by another process', async () => {
    const { host, state } = fakeKernel({ session: 1000 });
    expect(await applyMachinePriority(-10, host)).toEqual({ requested: -10, thread: -10, autogroup: null });
    expect(state.writes).toEqual([]);
  });

  it('tries again while the kernel rate-limits autogroup changes, then gives a reason', async () => {
    const twice = fakeKernel({ busyWrites: 2 });
    expect(await applyMachinePriority(-10, twice.host)).toMatchObject({ autogroup: -10 });
    expect(twice.state.pauses).toBe(2);
    const always = fakeKernel({ busyWrites: 10 });
    const outcome = await applyMachinePriority(-10, always.host);
    expect(outcome.autogroup).toBe(0);
    expect(outcome.problem).toContain("its session's autogroup nice stays 0 (EAGAIN)");
  });

  it('says what was refused and how to grant it', async () => {
    const { host } = fakeKernel({ refuse: ['thread', 'autogroup'] });
    const outcome = await applyMachinePriority(-10, host);
    expect(outcome).toMatchObject({ requested: -10, thread: 0, autogroup: 0 });
    expect(outcome.problem).toBe(
      'The machine process could not raise its CPU priority to nice -10: its nice stays 0 (permission denied); ' +
        "its session's autogroup nice stays 0 (permission denied). A busy workstation can then slow a job's lines; " +
        'grant it with a nice limit for the user (limits.conf "<user> - nice -10", systemd LimitNICE=-10) or CAP_SYS_NICE, or set MACHINE_NICE=0.',
    );
  });

  it('sets only the thread where the kernel shows no autogroup (root autogroup, or none built in)', async () => {
    for (const autogroupFile of ['empty', 'missing'] as const) {
      const { host, state } = fakeKernel({ autogroupFile });
      expect(await applyMachinePriority(-10, host)).toEqual({ requested: -10, thread: -10, autogroup: null });
      expect(state.writes).toEqual([]);
    }
  });

  it('sets only the thread where there are no autogroups (not Linux)', async () => {
    const { host, state } = fakeKernel({});
    host.platform = 'darwin';
    expect(await applyMachinePriority(-5, host)).toEqual({ requested: -5, thread: -5, autogroup: null });
    expect(state.writes).toEqual([]);
  });
});
