// `towpath-bridge doctor` (spec §7): the connection check, and with --deep / --json an integrity
// check of the host's store that confirms every anomaly in a second pass before reporting it,
// because the host's indexes can be briefly inconsistent while the app is saving.
import { arch } from 'node:os';
import { type BridgeEnv, parseHostSettings } from './config.ts';
import { BridgeError, errorLine, toBridgeError } from './errors.ts';
import { HostClient } from './host.ts';
import { BY_TOOL, runOperation } from './operations.ts';
import { VERSION } from './version.ts';

export interface DoctorOptions {
  env: BridgeEnv;
  platform: NodeJS.Platform;
  deep: boolean;
  json: boolean;
  pauseMs: number;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

type Category = 'dangling' | 'orphaned' | 'duplicated';
const CATEGORIES: Category[] = ['dangling', 'duplicated', 'orphaned'];

interface Anomaly {
  category: Category;
  id: string;
}

interface Pass {
  activeTasks: number;
  archivedTasks: number;
  referenced: number;
  found: Record<Category, Set<string>>;
  unverifiable: Set<string>;
  /** Why the indexes could not be trusted; empty when the pass is not degraded. */
  degraded: string;
}

export interface IntegrityReport {
  activeTasks: number;
  archivedTasks: number;
  clean: boolean;
  dangling: string[];
  duplicated: string[];
  orphaned: string[];
  referenced: number;
  unconfirmed: boolean;
  unconfirmedReason: string;
  unresolved: Anomaly[];
  unverifiable: string[];
}

type Item = Record<string, unknown> & { id: string };

const PULLS = [
  {
    label: 'GET /tasks?source=active&includeDone=true',
    path: '/tasks',
    query: { source: 'active', includeDone: 'true' },
  },
  {
    label: 'GET /tasks?source=archived&includeDone=true',
    path: '/tasks',
    query: { source: 'archived', includeDone: 'true' },
  },
  { label: 'GET /projects', path: '/projects', query: {} },
  { label: 'GET /tags', path: '/tags', query: {} },
] as const;

class PullError extends BridgeError {}

async function pull(client: HostClient, which: (typeof PULLS)[number]): Promise<Item[]> {
  let data: unknown;
  try {
    data = (await client.request({ method: 'GET', path: which.path, query: { ...which.query } })).data;
  } catch (error) {
    const e = toBridgeError(error);
    throw new PullError(e.code, `${which.label}: ${e.code}: ${e.message}`, e.details);
  }
  if (!Array.isArray(data))
    throw new PullError('APP_ERROR', `${which.label}: APP_ERROR: no list in the answer`);
  data.forEach((item, index) => {
    const ok = typeof item === 'object' && item !== null && typeof item.id === 'string' && item.id !== '';
    if (!ok)
      throw new PullError(
        'APP_ERROR',
        `${which.label}: APP_ERROR: item ${index} is not an entity with an id`,
      );
  });
  return data as Item[];
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const anomalyKey = (a: Anomaly) => `${a.category}\u0000${a.id}`;
const sorted = (set: Iterable<string>) => [...new Set(set)].sort(byCodePoint);

function indexProblem(entity: Item, field: string): string | undefined {
  const value = entity[field];
  if (value === undefined) return `is missing "${field}"`;
  if (!Array.isArray(value) || !value.every((id) => typeof id === 'string' && id !== ''))
    return `has a malformed "${field}"`;
  return undefined;
}

async function integrityPass(client: HostClient): Promise<Pass> {
  const [active, archived, projects, tags] = [
    await pull(client, PULLS[0]),
    await pull(client, PULLS[1]),
    await pull(client, PULLS[2]),
    await pull(client, PULLS[3]),
  ];
  const problems: string[] = [];
  const check = (label: string, kind: string, entities: Item[], fields: string[]) => {
    for (const entity of entities)
      for (const field of fields) {
        const problem = indexProblem(entity, field);
        if (problem) problems.push(`${label}: ${kind} ${entity.id} ${problem}`);
      }
  };
  check(PULLS[0].label, 'task', active, ['subTaskIds']);
  check(PULLS[1].label, 'task', archived, ['subTaskIds']);
  check(PULLS[2].label, 'project', projects, ['taskIds', 'backlogTaskIds']);
  check(PULLS[3].label, 'tag', tags, ['taskIds']);
  const degraded =
    problems.length === 0
      ? ''
      : `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`;

  const activeIds = new Set(active.map((t) => t.id));
  const archivedIds = new Set(archived.map((t) => t.id));
  const found: Record<Category, Set<string>> = {
    dangling: new Set(),
    orphaned: new Set(),
    duplicated: new Set([...activeIds].filter((id) => archivedIds.has(id))),
  };
  const pass: Pass = {
    activeTasks: active.length,
    archivedTasks: archived.length,
    referenced: 0,
    found,
    unverifiable: new Set(),
    degraded,
  };
  if (degraded) return pass;

  const list = (entity: Item, field: string) => entity[field] as string[];
  const containerRefs = [
    ...projects.flatMap((p) => [...list(p, 'taskIds'), ...list(p, 'backlogTaskIds')]),
    ...tags.flatMap((t) => list(t, 'taskIds')),
  ];
  const referenced = new Set([
    ...containerRefs,
    ...[...active, ...archived].flatMap((t) => list(t, 'subTaskIds')),
  ]);
  pass.referenced = referenced.size;
  for (const id of containerRefs) if (!activeIds.has(id) && !archivedIds.has(id)) found.dangling.add(id);
  const projectIds = new Set(projects.map((p) => p.id));
  for (const task of active) {
    if (referenced.has(task.id)) continue;
    // GET /projects hides archived projects, whose tasks stay active: such a task cannot be judged.
    const unlisted =
      (task.parentId === undefined || task.parentId === null) &&
      typeof task.projectId === 'string' &&
      task.projectId !== '' &&
      !projectIds.has(task.projectId);
    (unlisted ? pass.unverifiable : found.orphaned).add(task.id);
  }
  return pass;
}

/** The anomalies a pass may judge: a degraded pass judges only duplicates (§7 rule 6). */
function judged(pass: Pass, degraded: boolean): Anomaly[] {
  return CATEGORIES.filter((c) => !degraded || c === 'duplicated').flatMap((category) =>
    [...pass.found[category]].map((id) => ({ category, id })),
  );
}

export async function integrityReport(client: HostClient, pauseMs: number): Promise<IntegrityReport> {
  const first = await integrityPass(client); // a rule-1 error here propagates: no report
  const degraded = first.degraded !== '';
  const anomalies = judged(first, degraded);
  const reasons: string[] = degraded ? [first.degraded] : [];
  const confirmed: Record<Category, string[]> = { dangling: [], duplicated: [], orphaned: [] };
  const unresolved: Anomaly[] = [];
  let secondFailed = false;

  if (anomalies.length > 0) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    let second: Pass | undefined;
    try {
      second = await integrityPass(client);
      if (!degraded && second.degraded !== '') {
        reasons.push(second.degraded);
        second = undefined;
      }
    } catch (error) {
      reasons.push(toBridgeError(error).message);
    }
    if (second === undefined) {
      secondFailed = true;
      unresolved.push(...anomalies);
    } else {
      const seenAgain = judged(second, degraded);
      const again = new Set(seenAgain.map(anomalyKey));
      for (const anomaly of anomalies) {
        if (again.has(anomalyKey(anomaly))) confirmed[anomaly.category].push(anomaly.id);
        else unresolved.push(anomaly);
      }
      const before = new Set(anomalies.map(anomalyKey));
      for (const anomaly of seenAgain) if (!before.has(anomalyKey(anomaly))) unresolved.push(anomaly);
    }
  }
  const unconfirmed = degraded || secondFailed || unresolved.length > 0;
  // No repeats to drop: each pass judges sets, and only pass 2's new anomalies are added.
  unresolved.sort((a, b) => byCodePoint(a.category, b.category) || byCodePoint(a.id, b.id));
  return {
    activeTasks: first.activeTasks,
    archivedTasks: first.archivedTasks,
    clean: !degraded && anomalies.length === 0,
    dangling: sorted(confirmed.dangling),
    duplicated: sorted(confirmed.duplicated),
    orphaned: sorted(confirmed.orphaned),
    referenced: first.referenced,
    unconfirmed,
    unconfirmedReason:
      reasons.length > 0 ? reasons.join('; ') : unconfirmed ? 'anomalies seen in only one of two passes' : '',
    unresolved,
    unverifiable: degraded ? [] : sorted(first.unverifiable),
  };
}

export function reportExitCode(report: IntegrityReport): number {
  if (report.unconfirmed) return 1;
  return report.dangling.length + report.duplicated.length + report.orphaned.length > 0 ? 3 : 0;
}

function few(ids: string[]): string {
  return ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} (+${ids.length - 3} more)`;
}

function describe(report: IntegrityReport): string {
  const code = reportExitCode(report);
  const word = code === 1 ? 'UNCONFIRMED' : code === 3 ? 'WARN' : 'OK';
  const lines = [
    `integrity ${word} active=${report.activeTasks} archived=${report.archivedTasks} referenced=${report.referenced}`,
  ];
  for (const key of ['dangling', 'duplicated', 'orphaned', 'unverifiable'] as const)
    if (report[key].length > 0) lines.push(`  ${key} ${report[key].length}: ${few(report[key])}`);
  if (report.unresolved.length > 0)
    lines.push(
      `  unresolved ${report.unresolved.length}: ${few(report.unresolved.map((u) => `${u.category}:${u.id}`))}`,
    );
  if (report.unconfirmedReason) lines.push(`  reason: ${report.unconfirmedReason}`);
  return lines.map((l) => `${l}\n`).join('');
}

export async function runDoctor(options: DoctorOptions): Promise<number> {
  const { stdout, stderr } = options;
  let client: HostClient;
  try {
    client = new HostClient(parseHostSettings(options.env), options.env, { platform: options.platform });
  } catch (error) {
    stderr(errorLine(error));
    return 2;
  }

  if (!options.json) {
    const token = client.token();
    stdout(`towpath-bridge ${VERSION}\n`);
    stdout(`platform ${options.platform} ${arch()} node ${process.version}\n`);
    stdout(`host ${client.settings.url}\n`);
    stdout(`token ${token.source}${token.path ? ` ${token.path}` : ''}\n`);
    const health = BY_TOOL.get('health');
    try {
      if (!health) throw new BridgeError('INTERNAL_ERROR', 'Unexpected bridge error');
      const result = await runOperation(health, {}, { client });
      const data = (result.kind === 'data' ? result.data : {}) as Record<string, unknown>;
      stdout(
        `health OK server=${String(data.server)} rendererReady=${String(data.rendererReady)} taskCount=${String(data.taskCount)}\n`,
      );
    } catch (error) {
      const e = toBridgeError(error);
      stdout(`health FAIL ${e.code} ${e.message}\n`);
      return 1;
    }
    if (!options.deep) return 0;
  }

  let report: IntegrityReport;
  try {
    report = await integrityReport(client, options.pauseMs);
  } catch (error) {
    stderr(errorLine(error));
    return 1;
  }
  stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : describe(report));
  return reportExitCode(report);
}
