// The 16 operations (spec §3.2), one row each: input schema, host route(s), result shape, and the
// names the CLI and MCP faces use. Both faces run operations only through runOperation.
import type { z } from 'zod';
import { parseIsoTime } from './dates.ts';
import { BridgeError, invalidField, invalidInput, issuesFromZod } from './errors.ts';
import type { HostClient } from './host.ts';
import { isObject } from './json.ts';
import { LazyList } from './list-body.ts';
import { type Entity, type ListPage, type ListSource, pageList } from './lists.ts';
import * as s from './schemas.ts';

export interface OperationContext {
  client: HostClient;
  /** The MCP face caps lists at 20 unless told otherwise; the CLI does not cap (§4.4). */
  defaultLimit?: number;
}

/** What a run produces: list operations keep their paging facts for each face to render. */
export type OperationResult =
  | { kind: 'list'; page: ListPage; entity: Entity }
  | { kind: 'data'; data: unknown };

export type ResultShape = 'task' | 'list' | 'current' | 'object';

export interface Operation {
  tool: string;
  /** CLI words, e.g. ['tasks', 'list']. */
  command: readonly string[];
  /** The input field filled by the CLI's positional argument. */
  positional?: 'id' | 'title';
  /** CLI flags besides --format (see cli.ts for how each maps onto an input field). */
  flags: readonly string[];
  title: string;
  description: string;
  readOnly: boolean;
  idempotent: boolean;
  input: z.ZodType;
  output: z.ZodType;
  shape: ResultShape;
  run(input: never, context: OperationContext): Promise<OperationResult>;
}

const UNUSABLE = 'Host answered success without usable data';

function asTask(data: unknown): Record<string, unknown> {
  if (isObject(data) && typeof data.id === 'string') return data;
  throw new BridgeError('APP_ERROR', UNUSABLE);
}

function asObject(data: unknown): Record<string, unknown> {
  if (isObject(data)) return data;
  throw new BridgeError('APP_ERROR', UNUSABLE);
}

function asList(data: unknown): ListSource {
  if (Array.isArray(data) || data instanceof LazyList) return data;
  throw new BridgeError('APP_ERROR', UNUSABLE);
}

const data = (value: unknown): OperationResult => ({ kind: 'data', data: value });

/** Only the keys the caller gave, with plannedAt as epoch ms and the title trimmed (§3.3). */
function taskBody(input: Partial<s.CreateInput>): Record<string, unknown> {
  if (input.dueDay != null && input.dueWithTime != null)
    throw invalidField('dueWithTime', 'cannot be combined with dueDay; give one of them');
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || key === 'id') continue;
    if (key === 'title') body.title = (value as string).trim();
    else if (key === 'plannedAt') body.plannedAt = typeof value === 'string' ? parseIsoTime(value) : value;
    else if (key === 'projectId' && value === null) continue;
    else body[key] = value;
  }
  return body;
}

async function getTask(client: HostClient, id: string) {
  return asTask((await client.request({ method: 'GET', path: `/tasks/${id}` })).data);
}

async function patchTask(client: HostClient, id: string, body: Record<string, unknown>) {
  return data(asTask((await client.request({ method: 'PATCH', path: `/tasks/${id}`, body })).data));
}

/** GETs a list route and pages the answer on the bridge's side (§4). */
async function listPage(
  context: OperationContext,
  path: string,
  query: Record<string, string>,
  input: s.ListNamedInput,
  entity: Entity,
): Promise<OperationResult> {
  const all = asList((await context.client.requestList({ method: 'GET', path, query })).data);
  const limit = input.limit ?? context.defaultLimit;
  return {
    kind: 'list',
    entity,
    page: pageList(all, { offset: input.offset, limit, full: input.full }, entity),
  };
}

/** Projects and tags: the host honours only `query` (§1.5). */
function namedList(
  context: OperationContext,
  path: string,
  input: s.ListNamedInput,
  entity: Entity,
): Promise<OperationResult> {
  return listPage(context, path, input.query ? { query: input.query } : {}, input, entity);
}

const LIST_FLAGS = ['query', 'limit', 'offset', 'full'] as const;
const TASK_FLAGS = [
  'notes',
  'project-id',
  'tag-id',
  'planned-at',
  'due-day',
  'due-with-time',
  'done',
  'time-estimate',
  'time-spent',
] as const;

export const OPERATIONS: readonly Operation[] = [
  {
    tool: 'health',
    command: ['health'],
    flags: [],
    title: 'Check task host',
    description: "Check that Super Productivity's local REST API is reachable and accepts the token.",
    readOnly: true,
    idempotent: true,
    input: s.none,
    output: s.healthOutput,
    shape: 'object',
    async run(_input: Record<string, never>, { client }) {
      const health = asObject((await client.request({ method: 'GET', path: '/health' })).data);
      let status: Record<string, unknown>;
      try {
        status = asObject((await client.request({ method: 'GET', path: '/status' })).data);
      } catch (error) {
        if (error instanceof BridgeError)
          throw new BridgeError(error.code, error.message, { ...error.details, health });
        throw error;
      }
      const result: Record<string, unknown> = { hostUrl: client.settings.url };
      if (Object.hasOwn(health, 'server')) result.server = health.server;
      if (Object.hasOwn(health, 'rendererReady')) result.rendererReady = health.rendererReady;
      result.tokenSource = client.token().source;
      if (Object.hasOwn(status, 'taskCount')) result.taskCount = status.taskCount;
      if (Object.hasOwn(status, 'currentTaskId')) result.currentTaskId = status.currentTaskId;
      return data(result);
    },
  },
  {
    tool: 'get_status',
    command: ['status'],
    flags: [],
    title: 'Get app status',
    description: 'Current task and number of active tasks.',
    readOnly: true,
    idempotent: true,
    input: s.none,
    output: s.statusOutput,
    shape: 'object',
    async run(_input: Record<string, never>, { client }) {
      return data(asObject((await client.request({ method: 'GET', path: '/status' })).data));
    },
  },
  {
    tool: 'list_tasks',
    command: ['tasks', 'list'],
    flags: ['query', 'project-id', 'tag-id', 'include-done', 'source', 'limit', 'offset', 'full'],
    title: 'List tasks',
    description:
      'List tasks with compact fields. query: title substring; tagId TODAY: due today; source: active (default), archived or all. Returns 20 items unless limit is set (max 100000); page with offset; full=true for whole entities.',
    readOnly: true,
    idempotent: true,
    input: s.listTasksInput,
    output: s.listOutput,
    shape: 'list',
    async run(input: s.ListTasksInput, context) {
      const query: Record<string, string> = {};
      if (input.query) query.query = input.query;
      if (input.projectId !== undefined) query.projectId = input.projectId;
      if (input.tagId !== undefined) query.tagId = input.tagId;
      // The host hides done tasks unless asked, and archived tasks are nearly all done (§4.2).
      if (input.includeDone ?? input.source === 'archived') query.includeDone = 'true';
      if (input.source === 'archived' || input.source === 'all') query.source = input.source;
      return listPage(context, '/tasks', query, input, 'task');
    },
  },
  {
    tool: 'get_task',
    command: ['tasks', 'get'],
    positional: 'id',
    flags: [],
    title: 'Get task',
    description: 'Get one active task by id (archived tasks: list_tasks source=archived).',
    readOnly: true,
    idempotent: true,
    input: s.idInput,
    output: s.taskOutput,
    shape: 'task',
    async run(input: { id: string }, { client }) {
      return data(await getTask(client, input.id));
    },
  },
  {
    tool: 'create_task',
    command: ['tasks', 'add'],
    positional: 'title',
    flags: [...TASK_FLAGS, 'parent-id'],
    title: 'Create task',
    description:
      'Create a task. Times in ms (1h = 3600000). parentId makes a subtask and excludes projectId and tagIds. IDs come from list_projects and list_tags.',
    readOnly: false,
    idempotent: false,
    input: s.createInput,
    output: s.taskOutput,
    shape: 'task',
    async run(input: s.CreateInput, { client }) {
      if (input.parentId !== undefined && ('projectId' in input || 'tagIds' in input))
        throw invalidField(
          'parentId',
          "cannot be combined with projectId or tagIds; a subtask takes its parent's",
        );
      const body = taskBody(input);
      return data(asTask((await client.request({ method: 'POST', path: '/tasks', body })).data));
    },
  },
  {
    tool: 'update_task',
    command: ['tasks', 'update'],
    positional: 'id',
    flags: [...TASK_FLAGS, 'title', 'not-done'],
    title: 'Update task',
    description: 'Change the given fields of a task; tagIds replaces the list. Times in ms.',
    readOnly: false,
    idempotent: true,
    input: s.updateInput,
    output: s.taskOutput,
    shape: 'task',
    async run(input: s.UpdateInput, { client }) {
      if (Object.keys(input).every((key) => key === 'id'))
        throw invalidField('id', 'Nothing to update', 'Nothing to update');
      if (input.projectId === null)
        throw invalidField(
          'projectId',
          'cannot be cleared',
          'projectId cannot be cleared; move the task to another project (e.g. INBOX_PROJECT)',
        );
      return patchTask(client, input.id, taskBody(input));
    },
  },
  {
    tool: 'complete_task',
    command: ['tasks', 'complete'],
    positional: 'id',
    flags: [],
    title: 'Complete task',
    description: 'Mark a task done.',
    readOnly: false,
    idempotent: true,
    input: s.idInput,
    output: s.taskOutput,
    shape: 'task',
    async run(input: { id: string }, { client }) {
      return patchTask(client, input.id, { isDone: true });
    },
  },
  {
    tool: 'uncomplete_task',
    command: ['tasks', 'uncomplete'],
    positional: 'id',
    flags: [],
    title: 'Reopen task',
    description: 'Mark a task not done.',
    readOnly: false,
    idempotent: true,
    input: s.idInput,
    output: s.taskOutput,
    shape: 'task',
    async run(input: { id: string }, { client }) {
      return patchTask(client, input.id, { isDone: false });
    },
  },
  {
    tool: 'start_task',
    command: ['tasks', 'start'],
    positional: 'id',
    flags: [],
    title: 'Start tracking',
    description: 'Make a task current and track time on it; replaces any current task.',
    readOnly: false,
    idempotent: true,
    input: s.idInput,
    output: s.startOutput,
    shape: 'object',
    async run(input: { id: string }, { client }) {
      await client.request({ method: 'POST', path: `/tasks/${input.id}/start` });
      return data({ currentTaskId: input.id });
    },
  },
  {
    tool: 'stop_current_task',
    command: ['tasks', 'stop-current'],
    flags: [],
    title: 'Stop tracking',
    description: 'Stop time tracking; afterwards no task is current.',
    readOnly: false,
    idempotent: true,
    input: s.none,
    output: s.stopOutput,
    shape: 'object',
    async run(_input: Record<string, never>, { client }) {
      await client.request({ method: 'POST', path: '/task-control/stop' });
      return data({ currentTaskId: null });
    },
  },
  {
    tool: 'get_current_task',
    command: ['tasks', 'current'],
    flags: [],
    title: 'Get current task',
    description: 'The task being tracked, or null.',
    readOnly: true,
    idempotent: true,
    input: s.none,
    output: s.currentOutput,
    shape: 'current',
    async run(_input: Record<string, never>, { client }) {
      const answer = (await client.request({ method: 'GET', path: '/task-control/current' })).data;
      return data(answer === undefined ? null : asTask(answer));
    },
  },
  {
    tool: 'set_current_task',
    command: ['tasks', 'set-current'],
    positional: 'id',
    flags: [],
    title: 'Set current task',
    description: 'Make taskId the current task; null clears it.',
    readOnly: false,
    idempotent: true,
    input: s.setCurrentInput,
    output: s.setCurrentOutput,
    shape: 'object',
    async run(input: { taskId: string | null }, { client }) {
      await client.request({ method: 'POST', path: '/task-control/current', body: { taskId: input.taskId } });
      return data({ currentTaskId: input.taskId });
    },
  },
  {
    tool: 'archive_task',
    command: ['tasks', 'archive'],
    positional: 'id',
    flags: [],
    title: 'Archive task',
    description:
      'Move an active task to the archive. TASK_NOT_FOUND means nothing was archived: the task is already archived or never existed.',
    readOnly: false,
    idempotent: false,
    input: s.idInput,
    output: s.archiveOutput,
    shape: 'object',
    async run(input: { id: string }, { client }) {
      // Hosts before 18.15 answer success for an unknown id and damage their store, so the bridge
      // proves the task is active first; only a real 404 TASK_NOT_FOUND may say "not found".
      let probe: unknown;
      try {
        probe = (await client.request({ method: 'GET', path: `/tasks/${input.id}` })).data;
      } catch (error) {
        if (error instanceof BridgeError && error.code === 'TASK_NOT_FOUND' && error.details?.status === 404)
          throw new BridgeError(
            'TASK_NOT_FOUND',
            'Task is not in the active list, so it was not archived. It may already be archived, or it may never have existed.',
            { id: input.id },
          );
        throw error;
      }
      if (!isObject(probe) || probe.id !== input.id)
        throw new BridgeError(
          'APP_ERROR',
          `The host did not confirm that task ${input.id} exists; nothing was archived.`,
        );
      await client.request({ method: 'POST', path: `/tasks/${input.id}/archive` });
      return data({ archived: true, id: input.id });
    },
  },
  {
    tool: 'restore_task',
    command: ['tasks', 'restore'],
    positional: 'id',
    flags: [],
    title: 'Restore task',
    description: 'Move an archived task back to the active list.',
    readOnly: false,
    idempotent: false,
    input: s.idInput,
    output: s.restoreOutput,
    shape: 'object',
    async run(input: { id: string }, { client }) {
      await client.request({ method: 'POST', path: `/tasks/${input.id}/restore` });
      return data({ restored: true, id: input.id });
    },
  },
  {
    tool: 'list_projects',
    command: ['projects', 'list'],
    flags: LIST_FLAGS,
    title: 'List projects',
    description:
      'List active projects (id, title, isArchived). Returns 20 unless limit is set; page with offset; full=true for whole entities.',
    readOnly: true,
    idempotent: true,
    input: s.listNamedInput,
    output: s.listOutput,
    shape: 'list',
    async run(input: s.ListNamedInput, context) {
      return namedList(context, '/projects', input, 'project');
    },
  },
  {
    tool: 'list_tags',
    command: ['tags', 'list'],
    flags: LIST_FLAGS,
    title: 'List tags',
    description:
      'List tags (id, title), including TODAY. Returns 20 unless limit is set; page with offset; full=true for whole entities.',
    readOnly: true,
    idempotent: true,
    input: s.listNamedInput,
    output: s.listOutput,
    shape: 'list',
    async run(input: s.ListNamedInput, context) {
      return namedList(context, '/tags', input, 'tag');
    },
  },
];

export const BY_TOOL: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [op.tool, op]));

export const DELETE_REFUSAL = 'Deleting tasks is not supported; archive the task instead';

/** Validates raw input against the operation's schema (no coercion) and runs it. */
export async function runOperation(
  op: Operation,
  input: unknown,
  context: OperationContext,
): Promise<OperationResult> {
  const parsed = op.input.safeParse(input);
  if (!parsed.success) throw invalidInput(issuesFromZod(parsed.error));
  return op.run(parsed.data as never, context);
}
