// Priorities as the kernel reports them, read independently of the code under test (tests and
// benchmarks).
import { readFileSync } from 'node:fs';

/** Whether this process may lower nice to `nice`: CAP_SYS_NICE, or RLIMIT_NICE of at least 20 − nice. */
export function mayRaiseTo(nice: number): boolean {
  const caps = /CapEff:\s*([0-9a-f]+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
  if ((BigInt(`0x${caps}`) >> 23n) & 1n) return true;
  const limit = /Max nice priority\s+(\S+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return limit === 'unlimited' || 20 - nice <= Number(limit);
}

/** The autogroup nice of a process's session (`/proc/<pid>/autogroup`); null for the root autogroup (an empty file) or none. */
export function autogroupNice(pid: number | 'self'): number | null {
  try {
    const match = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Whether a process leads its session (its session id, field 6 of stat(5), is its pid). */
export function leadsSession(pid: number): boolean {
  return statFields(pid)[3] === String(pid);
}

/** A process's main-thread nice, field 19 of stat(5). */
export function threadNice(pid: number): number {
  return Number(statFields(pid)[16]);
}

/** stat(5) from field 3 on: the command name (field 2) may hold spaces and parentheses. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
