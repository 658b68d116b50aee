// The Tasks area's REST calls: /api/tasks/* on the LAN door, which runs the task bridge's
// operations against the operator's task app. Errors keep the core's `{code, message}`.
import { type ErrorEnvelope, requestJson } from '../../lib/rest.ts';

/** A task as the core projects it (the bridge's compact fields); absent fields stay absent. */
export interface Task {
  id: string;
  title: string;
  isDone?: boolean;
  projectId?: string;
  tagIds?: string[];
  parentId?: string;
  subTaskIds?: string[];
  /** Milliseconds tracked so far. */
  timeSpent?: number;
  /** Milliseconds planned. */
  timeEstimate?: number;
  notes?: string;
  dueDay?: string | null;
  dueWithTime?: number | null;
  doneOn?: number | null;
}

export interface NewTask {
  title: string;
  notes?: string;
  /** Milliseconds, or a duration of the bridge's forms (`1h30m`, `45m`, `1d2h`, `5400000`). */
  timeEstimate?: string;
}

export class TaskApiError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TaskApiError';
    this.code = code;
  }
}

/** The task routes answer `{code, message}`; an empty success is a failure too. */
const TASK_ERRORS: ErrorEnvelope = {
  unreachable: () =>
    new TaskApiError('CORE_UNREACHABLE', 'Towpath is not answering; check that it is still running'),
  errorOf(status, ok, answer) {
    if (ok && answer !== null) return undefined;
    // 421: addressed by a LAN name; 403: from another computer. Either way, not this browser's to use.
    if (status === 421 || (status === 403 && answer?.code === 'FORBIDDEN'))
      return new TaskApiError('WORKSTATION_ONLY', 'Tasks are only available on the workstation itself');
    const code = typeof answer?.code === 'string' ? answer.code : `HTTP_${status}`;
    const message =
      typeof answer?.message === 'string'
        ? answer.message
        : typeof answer?.detail === 'string'
          ? answer.detail
          : `Towpath answered HTTP ${status}`;
    return new TaskApiError(code, message);
  },
};

const call = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
  requestJson<T>(path, { method, body, errors: TASK_ERRORS });

const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body);
const task = (id: string, action: string) => `/api/tasks/${encodeURIComponent(id)}/${action}`;

export const tasksApi = {
  today: () => call<{ items: Task[] }>('GET', '/api/tasks/today').then((answer) => answer.items),
  current: () => call<{ task: Task | null }>('GET', '/api/tasks/current').then((answer) => answer.task),
  create: (input: NewTask) => post<Task>('/api/tasks', input),
  start: (id: string) => post<{ currentTaskId: string }>(task(id, 'start')),
  setCurrent: (id: string) => post<{ currentTaskId: string }>(task(id, 'set-current')),
  stopCurrent: () => post<{ currentTaskId: null }>('/api/tasks/stop-current'),
  complete: (id: string) => post<Task>(task(id, 'complete')),
  uncomplete: (id: string) => post<Task>(task(id, 'uncomplete')),
};

/** What the operator can do about an error, beside its message. */
export function hintFor(error: unknown): string | undefined {
  const code = error instanceof TaskApiError ? error.code : undefined;
  if (code === 'APP_UNAVAILABLE')
    return 'Start Super Productivity with its local REST API enabled, then try again.';
  if (code === 'UNAUTHORIZED')
    return "Copy the token from Super Productivity's settings into TASK_HOST_TOKEN and restart Towpath.";
  if (code === 'TIMEOUT') return 'The task app is busy or stuck; try again in a moment.';
  if (code === 'WORKSTATION_ONLY')
    return "The operator's task app runs on the PC attached to the winder, and only a browser there may use it: open Tasks in the Towpath window on that PC, or at http://127.0.0.1 with Towpath's port in a browser on it. Dashboards work from here.";
  return undefined;
}
