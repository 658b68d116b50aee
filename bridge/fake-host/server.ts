// A fake Super Productivity local REST API for tests (spec §1.9): the real routes, envelope and
// pre-routing checks over loopback HTTP, version gates, and injectable faults.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { formatLocalDate } from '../dates.ts';
import { isObject } from '../json.ts';
import {
  addId,
  type Entity,
  emptyStore,
  type FakeStore,
  findProject,
  findTag,
  INBOX,
  ids,
  makeTask,
  newId,
  removeId,
  seedStore,
  TODAY,
} from './store.ts';

export type Fault =
  | { type: 'reset' }
  | { type: 'delay'; ms: number }
  | { type: 'raw'; status: number; body: string; contentType?: string }
  | { type: 'error'; status: number; code: string; message: string; details?: unknown }
  | { type: 'data'; status?: number; data: unknown };

export interface FaultRule {
  method: string;
  /** May contain `{id}` for one path segment. */
  path: string;
  query?: Record<string, string>;
  skip?: number;
  times?: number;
  fault: Fault;
}

/** The presets the spec names (§1.9 item 6). */
/**
 * A task host that is not running: nothing listens on port 1. A fake host's own port, once closed,
 * is no such address — the next server bound to port 0 (this test's workstation, or another test
 * file's) can be given it, and then answers in the host's place.
 */
export const NOT_RUNNING_URL = 'http://127.0.0.1:1';

export const FAULTS = {
  nonJson: { type: 'raw', status: 200, body: '<html>oops</html>', contentType: 'text/html' },
  empty: { type: 'raw', status: 200, body: '' },
  bare404: { type: 'raw', status: 404, body: 'Not Found', contentType: 'text/plain' },
  okTrue500: { type: 'raw', status: 500, body: '{"ok":true,"data":{}}' },
} as const satisfies Record<string, Fault>;

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text if not JSON, or undefined without a body. */
  body: unknown;
}

export interface FakeHostOptions {
  version?: string;
  token?: string;
  seed?: string;
  /** `YYYY-MM-DD` for the virtual TODAY tag; defaults to the clock's local date. */
  today?: string;
  now?: () => number;
  port?: number;
  rendererReady?: boolean;
  apiDisabled?: boolean;
  rendererTimeoutMs?: number;
  rendererDelayMs?: number;
}

export interface FakeHost {
  url: string;
  port: number;
  store: FakeStore;
  requests: LoggedRequest[];
  options: Required<
    Pick<FakeHostOptions, 'rendererReady' | 'apiDisabled' | 'rendererTimeoutMs' | 'rendererDelayMs'>
  >;
  inject(rule: FaultRule): void;
  clearFaults(): void;
  close(): Promise<void>;
}

const MAX_PENDING = 50;
const MAX_BODY = 1024 * 1024;
const WRITABLE = [
  'title',
  'notes',
  'isDone',
  'timeEstimate',
  'timeSpent',
  'projectId',
  'tagIds',
  'dueDay',
  'dueWithTime',
  'plannedAt',
];

class HostError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function versionAtLeast(version: string, wanted: string): boolean {
  const a = version.split('.').map(Number);
  const b = wanted.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers: Record<string, string> = {},
) {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  send(res, status, { ok: false, error }, headers);
}

/** The writable fields' types as 18.14+ checks them, with the names its error details use. */
const FIELD_TYPES: Record<string, { test: (value: unknown) => boolean; name: string }> = {
  title: { test: (v) => typeof v === 'string', name: 'string' },
  notes: { test: (v) => typeof v === 'string', name: 'string' },
  isDone: { test: (v) => typeof v === 'boolean', name: 'boolean' },
  timeEstimate: { test: (v) => typeof v === 'number', name: 'number' },
  timeSpent: { test: (v) => typeof v === 'number', name: 'number' },
  plannedAt: { test: (v) => typeof v === 'number', name: 'number' },
  projectId: { test: (v) => typeof v === 'string', name: 'string' },
  tagIds: { test: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'), name: 'Array<string>' },
  dueDay: { test: (v) => v === null || typeof v === 'string', name: '(null | string)' },
  dueWithTime: { test: (v) => v === null || typeof v === 'number', name: '(null | number)' },
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export async function startFakeHost(options: FakeHostOptions = {}): Promise<FakeHost> {
  const version = options.version ?? '18.17.0';
  const now = options.now ?? Date.now;
  const typed = versionAtLeast(version, '18.14.0');
  const projectChecks = versionAtLeast(version, '18.15.0');
  const archive404 = versionAtLeast(version, '18.15.0');
  const needsToken = versionAtLeast(version, '18.17.0');
  const store = emptyStore();
  if (options.seed) seedStore(store, options.seed, now());
  const requests: LoggedRequest[] = [];
  const rules: { rule: FaultRule; seen: number; used: number }[] = [];
  const settings = {
    rendererReady: options.rendererReady ?? true,
    apiDisabled: options.apiDisabled ?? false,
    rendererTimeoutMs: options.rendererTimeoutMs ?? 15_000,
    rendererDelayMs: options.rendererDelayMs ?? 0,
  };
  let pending = 0;
  let port = 0;
  const sockets = new Set<Socket>();

  const today = () => options.today ?? formatLocalDate(now());
  const currentTask = () => (store.currentTaskId ? (store.active.get(store.currentTaskId) ?? null) : null);

  // Typed validation of writable fields, as 18.14+ does it.
  function checkTypes(body: Record<string, unknown>) {
    if (!typed) return;
    const details = Object.entries(FIELD_TYPES)
      .filter(([key, { test }]) => key in body && !test(body[key]))
      .map(([key, { name }]) => ({ path: `$input.${key}`, expected: name, value: typeOf(body[key]) }));
    if (details.length > 0) throw new HostError(400, 'INVALID_INPUT', 'Invalid input', details);
  }

  function activeTask(id: string): Entity {
    const task = store.active.get(id);
    if (!task || (store.phantomDamage && task.parentId === undefined))
      throw new HostError(404, 'TASK_NOT_FOUND', 'Task not found');
    return task;
  }

  function indexTask(task: Entity) {
    if (typeof task.parentId === 'string') {
      addId(store.active.get(task.parentId), 'subTaskIds', task.id);
      return;
    }
    addId(findProject(store, task.projectId), 'taskIds', task.id);
    for (const tagId of ids(task, 'tagIds'))
      if (tagId !== TODAY) addId(findTag(store, tagId), 'taskIds', task.id);
  }

  function unindexTask(task: Entity) {
    if (typeof task.parentId === 'string') removeId(store.active.get(task.parentId), 'subTaskIds', task.id);
    for (const project of store.projects) {
      removeId(project, 'taskIds', task.id);
      removeId(project, 'backlogTaskIds', task.id);
    }
    for (const tag of store.tags) removeId(tag, 'taskIds', task.id);
  }

  function dueToday(task: Entity): boolean {
    if (typeof task.dueWithTime === 'number') return formatLocalDate(task.dueWithTime) === today();
    return task.dueDay === today();
  }

  const handlers: {
    method: string;
    pattern: RegExp;
    handle: (m: string[], q: URLSearchParams, b: unknown) => [number, unknown];
  }[] = [
    {
      method: 'GET',
      pattern: /^\/status$/,
      handle: () => [
        200,
        { currentTask: currentTask(), currentTaskId: store.currentTaskId, taskCount: store.active.size },
      ],
    },
    {
      method: 'GET',
      pattern: /^\/tasks$/,
      handle: (_m, q) => {
        const source = q.get('source');
        const pools =
          source === 'archived'
            ? [store.archived]
            : source === 'all'
              ? [store.active, store.archived]
              : [store.active];
        const includeDone = (q.get('includeDone') ?? '').toLowerCase() === 'true';
        const text = (q.get('query') ?? '').toLowerCase();
        const projectId = q.get('projectId');
        const tagId = q.get('tagId');
        const out: Entity[] = [];
        for (const pool of pools) {
          for (const task of pool.values()) {
            if (pool === store.active && store.phantomDamage && task.parentId === undefined) continue;
            if (!includeDone && task.isDone === true) continue;
            if (text && !String(task.title).toLowerCase().includes(text)) continue;
            if (projectId !== null && task.projectId !== projectId) continue;
            if (tagId !== null && (tagId === TODAY ? !dueToday(task) : !ids(task, 'tagIds').includes(tagId)))
              continue;
            out.push(task);
          }
        }
        return [200, out];
      },
    },
    {
      method: 'POST',
      pattern: /^\/tasks$/,
      handle: (_m, _q, body) => {
        if (!isObject(body)) throw new HostError(400, 'INVALID_INPUT', 'Request body must be an object');
        if (typeof body.title !== 'string' || body.title.trim() === '')
          throw new HostError(400, 'INVALID_INPUT', 'title is required');
        checkTypes(body);
        if ('subTaskIds' in body) throw new HostError(400, 'UNSUPPORTED_FIELD', 'subTaskIds cannot be set');
        const fields: Record<string, unknown> = {};
        for (const key of WRITABLE) if (key in body) fields[key] = body[key];
        let parent: Entity | undefined;
        if ('parentId' in body) {
          if ('projectId' in body || 'tagIds' in body)
            throw new HostError(400, 'UNSUPPORTED_FIELD', 'projectId and tagIds cannot be set on a subtask');
          if (typeof body.parentId !== 'string' || body.parentId === '')
            throw new HostError(400, 'INVALID_INPUT', 'parentId must be a non-empty string');
          parent = store.active.get(body.parentId);
          if (!parent) throw new HostError(404, 'PARENT_NOT_FOUND', 'Parent task not found');
          if (typeof parent.parentId === 'string')
            throw new HostError(400, 'INVALID_PARENT', 'A subtask cannot have subtasks');
        }
        const task = makeTask(newId(), String(body.title).trim(), now(), { ...fields, modified: now() });
        if (parent) {
          task.parentId = parent.id;
          task.projectId = parent.projectId;
          task.tagIds = [];
        }
        if (task.projectId === undefined || task.projectId === null) task.projectId = INBOX;
        if (task.isDone === true) task.doneOn = now();
        store.active.set(task.id, task);
        indexTask(task);
        return [201, task];
      },
    },
    {
      method: 'GET',
      pattern: /^\/tasks\/([^/]+)$/,
      handle: ([, id = '']) => [200, activeTask(id)],
    },
    {
      method: 'PATCH',
      pattern: /^\/tasks\/([^/]+)$/,
      handle: ([, id = ''], _q, body) => {
        if (!isObject(body)) throw new HostError(400, 'INVALID_INPUT', 'Request body must be an object');
        if ('parentId' in body || 'subTaskIds' in body)
          throw new HostError(400, 'UNSUPPORTED_FIELD', 'parentId and subTaskIds cannot be changed');
        checkTypes(body);
        const task = activeTask(id);
        if (projectChecks && 'projectId' in body) {
          if (body.projectId === '') throw new HostError(400, 'INVALID_INPUT', 'projectId must not be empty');
          if (body.projectId !== task.projectId) {
            if (typeof task.parentId === 'string')
              throw new HostError(400, 'UNSUPPORTED_FIELD', 'The project of a subtask cannot be changed');
            const project = findProject(store, body.projectId);
            if (!project || project.isArchived === true)
              throw new HostError(404, 'PROJECT_NOT_FOUND', 'Project not found');
          }
        }
        unindexTask(task);
        for (const key of WRITABLE) if (key in body) task[key] = body[key];
        if ('isDone' in body) {
          if (task.isDone === true) task.doneOn = now();
          else delete task.doneOn;
        }
        task.modified = now();
        indexTask(task);
        return [200, task];
      },
    },
    {
      method: 'POST',
      pattern: /^\/tasks\/([^/]+)\/start$/,
      handle: ([, id = '']) => {
        activeTask(id);
        store.currentTaskId = id;
        return [200, { currentTaskId: id }];
      },
    },
    {
      method: 'POST',
      pattern: /^\/tasks\/([^/]+)\/archive$/,
      handle: ([, id = '']) => {
        const task = store.active.get(id);
        if (!task) {
          if (archive404) throw new HostError(404, 'TASK_NOT_FOUND', 'Task not found');
          // Before 18.15 the host "archives" nothing and its in-memory store is damaged.
          store.phantomDamage = true;
          return [200, { id, archived: true }];
        }
        const moving = [task, ...ids(task, 'subTaskIds').flatMap((sub) => store.active.get(sub) ?? [])];
        for (const each of moving) {
          if (each === task) unindexTask(each);
          store.active.delete(each.id);
          store.archived.set(each.id, each);
          if (store.currentTaskId === each.id) store.currentTaskId = null;
        }
        return [200, { id, archived: true }];
      },
    },
    {
      method: 'POST',
      pattern: /^\/tasks\/([^/]+)\/restore$/,
      handle: ([, id = '']) => {
        const task = store.archived.get(id);
        if (!task) throw new HostError(404, 'TASK_NOT_FOUND', 'Task not found in archive');
        for (const sub of [id, ...ids(task, 'subTaskIds')]) {
          const each = store.archived.get(sub);
          if (!each) continue;
          store.archived.delete(sub);
          store.active.set(sub, each);
        }
        indexTask(task);
        return [200, task];
      },
    },
    {
      method: 'GET',
      pattern: /^\/task-control\/current$/,
      handle: () => [200, currentTask()],
    },
    {
      method: 'POST',
      pattern: /^\/task-control\/current$/,
      handle: (_m, _q, body) => {
        if (
          !isObject(body) ||
          !('taskId' in body) ||
          (body.taskId !== null && typeof body.taskId !== 'string')
        )
          throw new HostError(400, 'INVALID_INPUT', 'taskId must be a string or null');
        if (body.taskId !== null) activeTask(body.taskId as string);
        store.currentTaskId = body.taskId as string | null;
        return [200, { currentTaskId: store.currentTaskId }];
      },
    },
    {
      method: 'POST',
      pattern: /^\/task-control\/stop$/,
      handle: () => {
        store.currentTaskId = null;
        return [200, { currentTaskId: null }];
      },
    },
    {
      method: 'GET',
      pattern: /^\/projects$/,
      handle: (_m, q) => {
        const text = (q.get('query') ?? '').toLowerCase();
        return [
          200,
          store.projects.filter((p) => p.isArchived !== true && String(p.title).toLowerCase().includes(text)),
        ];
      },
    },
    {
      method: 'GET',
      pattern: /^\/tags$/,
      handle: (_m, q) => {
        const text = (q.get('query') ?? '').toLowerCase();
        return [200, store.tags.filter((t) => String(t.title).toLowerCase().includes(text))];
      },
    },
  ];

  function matchRule(method: string, path: string, query: URLSearchParams): Fault | undefined {
    for (const entry of rules) {
      const { rule } = entry;
      if (rule.method !== method) continue;
      const pattern = new RegExp(
        `^${rule.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{id}', '[^/]+')}$`,
      );
      if (!pattern.test(path)) continue;
      if (rule.query && Object.entries(rule.query).some(([k, v]) => query.get(k) !== v)) continue;
      if (entry.used >= (rule.times ?? 1)) continue;
      entry.seen++;
      if (entry.seen <= (rule.skip ?? 0)) continue;
      entry.used++;
      return rule.fault;
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const text = raw.toString('utf8');
    let body: unknown;
    let bodyIsJson = true;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        bodyIsJson = false;
      }
    }
    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
    requests.push({ method, path, query, headers: { ...req.headers }, body });

    const fault = matchRule(method, path, url.searchParams);
    if (fault?.type === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.type === 'delay') await sleep(fault.ms);
    if (fault?.type === 'raw') {
      const headers: Record<string, string> = { 'Content-Length': String(Buffer.byteLength(fault.body)) };
      headers['Content-Type'] = fault.contentType ?? 'application/json';
      res.writeHead(fault.status, headers);
      res.end(fault.body);
      return;
    }
    if (fault?.type === 'error') {
      sendError(res, fault.status, fault.code, fault.message, fault.details);
      return;
    }
    if (fault?.type === 'data') {
      send(res, fault.status ?? 200, { ok: true, data: fault.data });
      return;
    }

    const fail = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      sendError(res, status, code, message, undefined, headers);
    if (settings.apiDisabled) return fail(503, 'API_DISABLED', 'Local REST API is disabled');
    const host = req.headers.host ?? '';
    const hostOk = ['127.0.0.1', 'localhost'].some((name) =>
      [name, `${name}:3876`, `${name}:${port}`].includes(host),
    );
    if (!hostOk) return fail(403, 'FORBIDDEN', 'Invalid Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null')
      return fail(403, 'FORBIDDEN', 'Web origins are not allowed');
    if (pending > MAX_PENDING) return fail(429, 'TOO_MANY_REQUESTS', 'Too many pending requests');
    if (method === 'GET' && path === '/health')
      return send(res, 200, { ok: true, data: { server: 'up', rendererReady: settings.rendererReady } });
    if (needsToken) {
      const header = req.headers.authorization;
      const bearer = header ? /^bearer\s+(.*)$/i.exec(header) : null;
      const www = { 'WWW-Authenticate': 'Bearer' };
      if (!bearer?.[1])
        return fail(401, 'UNAUTHORIZED', 'Authorization token required — enable it in the settings', www);
      if (bearer[1].trim() !== options.token)
        return fail(401, 'UNAUTHORIZED', 'Invalid authorization token. Copy it again from the settings', www);
    }
    if (!settings.rendererReady) return fail(503, 'APP_NOT_READY', 'The app is not ready yet');
    if (raw.length > MAX_BODY || !bodyIsJson)
      return fail(400, 'INVALID_REQUEST_BODY', 'Request body must be JSON of at most 1 MiB');
    if (settings.rendererDelayMs > 0) {
      if (settings.rendererDelayMs >= settings.rendererTimeoutMs) {
        await sleep(settings.rendererTimeoutMs);
        return fail(504, 'RENDERER_TIMEOUT', 'The app did not answer in time');
      }
      await sleep(settings.rendererDelayMs);
    }
    for (const handler of handlers) {
      if (handler.method !== method) continue;
      const match = handler.pattern.exec(path);
      if (!match) continue;
      try {
        const [status, data] = handler.handle([...match], url.searchParams, body);
        return send(res, status, { ok: true, data });
      } catch (error) {
        if (error instanceof HostError)
          return sendError(res, error.status, error.code, error.message, error.details);
        return fail(500, 'INTERNAL_ERROR', 'Renderer error');
      }
    }
    return fail(404, 'NOT_FOUND', 'Route not found');
  }

  const server = createServer((req, res) => {
    pending++;
    res.on('close', () => pending--);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit only the size matters; keep reading so the answer can be sent.
      if (size <= MAX_BODY + 1) chunks.push(chunk);
    });
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch(() => {
        if (!res.headersSent) sendError(res, 500, 'INTERNAL_ERROR', 'fake host');
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    requests,
    options: settings,
    inject(rule) {
      rules.push({ rule, seen: 0, used: 0 });
    },
    clearFaults() {
      rules.length = 0;
    },
    close() {
      return new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}
