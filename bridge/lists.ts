// Client-side paging and the compact projection of spec §4: the host ignores limit and offset, so
// the bridge pages whole answers and keeps assistants' context small by default.
import { isObject } from './json.ts';

export type Entity = 'task' | 'project' | 'tag';

const COMPACT: Record<Entity, readonly string[]> = {
  task: [
    'id',
    'title',
    'isDone',
    'projectId',
    'tagIds',
    'parentId',
    'subTaskIds',
    'timeSpent',
    'timeEstimate',
    'notes',
    'dueDay',
    'dueWithTime',
    'plannedAt',
    'doneOn',
  ],
  project: ['id', 'title', 'isArchived'],
  tag: ['id', 'title'],
};

export function compact(item: unknown, entity: Entity): unknown {
  if (!isObject(item)) return item;
  const out: Record<string, unknown> = {};
  for (const key of COMPACT[entity]) if (Object.hasOwn(item, key)) out[key] = item[key];
  return out;
}

export interface ListPage {
  items: unknown[];
  /** Items the host answered with (after its own filters, before paging). */
  matched: number;
  truncated: boolean;
}

export interface PageOptions {
  offset?: number | undefined;
  limit?: number | undefined;
  full?: boolean | undefined;
}

/** An array, or a LazyList that parses only the items sliced out of it. */
export interface ListSource {
  readonly length: number;
  slice(start?: number, end?: number): unknown[];
}

export function pageList(all: ListSource, options: PageOptions, entity: Entity): ListPage {
  const offset = options.offset ?? 0;
  const limit = options.limit;
  const slice = limit === undefined ? all.slice(offset) : all.slice(offset, offset + limit);
  const items = options.full ? slice : slice.map((item) => compact(item, entity));
  return { items, matched: all.length, truncated: limit !== undefined && offset + limit < all.length };
}

export function truncationNote(page: ListPage): string {
  return `truncated, showing ${page.items.length} of ${page.matched} matching items`;
}
