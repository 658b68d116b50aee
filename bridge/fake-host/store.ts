// The fake host's in-memory store (spec §1.9): the same pools and indexes as Super Productivity's,
// open to tests so they can seed and corrupt it directly.
import { randomBytes } from 'node:crypto';

/** Entities are loose records: tests corrupt them on purpose (missing or non-list indexes). */
export type Entity = Record<string, unknown> & { id: string };

export interface FakeStore {
  /** Active pool, in the host's order. */
  active: Map<string, Entity>;
  archived: Map<string, Entity>;
  /** Includes archived projects, which GET /projects leaves out. */
  projects: Entity[];
  tags: Entity[];
  currentTaskId: string | null;
  /** Set by an unknown-id archive before 18.15: top-level active tasks vanish from reads. */
  phantomDamage: boolean;
}

export const INBOX = 'INBOX_PROJECT';
export const TODAY = 'TODAY';

export function newId(): string {
  return randomBytes(16).toString('base64url').slice(0, 21);
}

const theme = () => ({ primary: '#29a1aa', isAutoContrast: true });

export function makeProject(id: string, title: string, extra: Record<string, unknown> = {}): Entity {
  return {
    id,
    title,
    taskIds: [],
    backlogTaskIds: [],
    noteIds: [],
    theme: theme(),
    advancedCfg: {},
    ...extra,
  };
}

export function makeTag(id: string, title: string, created = 0, extra: Record<string, unknown> = {}): Entity {
  return { id, title, taskIds: [], theme: theme(), advancedCfg: {}, created, ...extra };
}

export function makeTask(
  id: string,
  title: string,
  created: number,
  extra: Record<string, unknown> = {},
): Entity {
  return {
    id,
    title,
    isDone: false,
    projectId: INBOX,
    tagIds: [],
    subTaskIds: [],
    timeSpent: 0,
    timeEstimate: 0,
    timeSpentOnDay: {},
    created,
    attachments: [],
    ...extra,
  };
}

export function emptyStore(): FakeStore {
  return {
    active: new Map(),
    archived: new Map(),
    projects: [makeProject(INBOX, 'Inbox')],
    tags: [makeTag(TODAY, 'Today')],
    currentTaskId: null,
    phantomDamage: false,
  };
}

/** An index field as a list, tolerating corruption (a non-list reads as empty). */
export function ids(entity: Entity | undefined, key: string): string[] {
  const value = entity?.[key];
  return Array.isArray(value) ? (value as string[]) : [];
}

function setIds(entity: Entity | undefined, key: string, list: string[]) {
  if (entity) entity[key] = list;
}

export function addId(entity: Entity | undefined, key: string, id: string) {
  const list = ids(entity, key);
  if (!list.includes(id)) setIds(entity, key, [...list, id]);
}

export function removeId(entity: Entity | undefined, key: string, id: string) {
  if (entity && Array.isArray(entity[key]))
    setIds(
      entity,
      key,
      ids(entity, key).filter((other) => other !== id),
    );
}

export function findProject(store: FakeStore, id: unknown): Entity | undefined {
  return store.projects.find((project) => project.id === id);
}

export function findTag(store: FakeStore, id: unknown): Entity | undefined {
  return store.tags.find((tag) => tag.id === id);
}

/** Seeds a store the way tests and `npm run fake-host -- --seed` name them (§1.9 item 3). */
export function seedStore(store: FakeStore, seed: string, now: number): void {
  const task = (id: string, title: string, extra: Record<string, unknown> = {}) => {
    const entity = makeTask(id, title, now, extra);
    store.active.set(id, entity);
    return entity;
  };
  const big = /^big:([0-9]+)$/.exec(seed);
  if (big) {
    const inbox = findProject(store, INBOX);
    const list: string[] = [];
    for (let i = 0; i < Number(big[1]); i++) {
      const id = `big${String(i).padStart(18, '0')}`;
      task(id, `Task ${i}`, { timeEstimate: (i % 8) * 900_000 });
      list.push(id);
    }
    if (inbox) inbox.taskIds = list;
    return;
  }
  if (seed !== 'clean' && seed !== 'anomalies' && seed !== 'malformed')
    throw new Error(`unknown seed ${seed}`);
  const work = makeProject('work', 'Work');
  const urgent = makeTag('urgent', 'Urgent', now);
  store.projects.push(work);
  store.tags.push(urgent);
  task('t1', 'Wind mandrel A', { projectId: 'work', tagIds: ['urgent'], subTaskIds: ['t1a'] });
  task('t1a', 'Check resin bath', { projectId: 'work', parentId: 't1' });
  task('t2', 'Order carbon tow', { projectId: 'work' });
  task('t3', 'Clean the creel');
  work.taskIds = ['t1', 't2'];
  urgent.taskIds = ['t1'];
  const inbox = findProject(store, INBOX);
  if (inbox) inbox.taskIds = ['t3'];
  store.archived.set('a1', makeTask('a1', 'Old job', now, { isDone: true, doneOn: now, projectId: 'work' }));

  if (seed === 'anomalies') {
    // dangling: an index names a task in neither pool
    work.taskIds = ['t1', 't2', 'ghost1'];
    // orphaned: active, top-level, and no index names it
    task('t4', 'Forgotten task');
    // duplicated: the same id in both pools
    store.archived.set('t2', makeTask('t2', 'Order carbon tow', now, { isDone: true, projectId: 'work' }));
    // the task of an archived project: unverifiable through GET /projects
    store.projects.push(makeProject('old', 'Old project', { isArchived: true, taskIds: ['t7'] }));
    task('t7', 'Task of an archived project', { projectId: 'old' });
  }
  if (seed === 'malformed') delete work.backlogTaskIds;
}
