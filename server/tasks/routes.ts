// /api/tasks/*: the operator's task app (Super Productivity) for the renderer's Tasks area. The
// bridge's operations run in this process against the task host; nothing here knows the host's
// protocol. Loopback clients only: the task app and its token are the operator's own.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { BridgeEnv } from '../../bridge/config.ts';
import { parseHostSettings } from '../../bridge/config.ts';
import { formatLocalDate } from '../../bridge/dates.ts';
import { parseDuration } from '../../bridge/durations.ts';
import { BridgeError, invalidField, invalidInput, issuesFromZod } from '../../bridge/errors.ts';
import { HostClient } from '../../bridge/host.ts';
import { isObject } from '../../bridge/json.ts';
import { compact } from '../../bridge/lists.ts';
import { BY_TOOL, type OperationResult, runOperation } from '../../bridge/operations.ts';
import * as s from '../../bridge/schemas.ts';
import { type ClientAddresses, loopbackOnly, SOCKET_ADDRESSES } from '../http/client-address.ts';
import { localRoutes } from '../http/guards.ts';

export interface TaskRoutesOptions {
  /** The bridge's environment (TASK_HOST_URL, TASK_HOST_TOKEN, …), as the bridge CLI reads it. */
  env: BridgeEnv;
  /** How clients are told apart (§5.6); socket addresses only when not given. */
  clientAddresses?: ClientAddresses;
}

export const FORBIDDEN = { code: 'FORBIDDEN', message: 'Only the workstation itself may use the task app' };

/**
 * Plain words for the failures an operator can do something about, shown as they are on the Tasks
 * page; the bridge's own messages name URLs, variables and token files for a script's user.
 */
const PLAIN: Record<string, string> = {
  APP_UNAVAILABLE: 'The task app is not running',
  UNAUTHORIZED: 'The task app rejected the access token',
};

const STATUS: Record<string, number> = {
  INVALID_INPUT: 400,
  TASK_NOT_FOUND: 404,
  NOT_FOUND: 404,
  UNAUTHORIZED: 502,
  APP_ERROR: 502,
  APP_UNAVAILABLE: 503,
  // The host is up but its window is still loading: as unavailable as a stopped app, for now.
  APP_NOT_READY: 503,
  TIMEOUT: 504,
  INTERNAL_ERROR: 500,
};

/** The status and `{code, message}` body for any failure; other host codes pass through as 502. */
export function taskError(error: unknown): { status: number; body: { code: string; message: string } } {
  if (error instanceof BridgeError) {
    const code = String(error.code);
    return { status: STATUS[code] ?? 502, body: { code, message: PLAIN[code] ?? error.message } };
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return { status, body: { code: 'INVALID_INPUT', message: `body: ${fastifyError.message}` } };
  return { status: 500, body: { code: 'INTERNAL_ERROR', message: 'Unexpected error' } };
}

const estimateError = 'must be milliseconds or a duration such as 1h30m, 45m or 1d2h';
const createBody = z.strictObject({
  title: s.title,
  notes: s.notes.optional(),
  timeEstimate: z.union([s.ms, z.string()], { error: estimateError }).optional(),
});

/** `POST /api/tasks` body → the bridge's create_task input (the estimate in milliseconds). */
export function createInput(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw invalidField('body', 'must be a JSON object');
  const parsed = createBody.safeParse(body);
  if (!parsed.success) throw invalidInput(issuesFromZod(parsed.error));
  const { timeEstimate, ...rest } = parsed.data;
  if (timeEstimate === undefined) return rest;
  const ms = typeof timeEstimate === 'number' ? timeEstimate : parseDuration(timeEstimate.trim());
  if (ms === undefined) throw invalidField('timeEstimate', estimateError);
  return { ...rest, timeEstimate: ms };
}

function dataOf(result: OperationResult): unknown {
  return result.kind === 'data' ? result.data : { items: result.page.items };
}

export async function taskRoutes(
  app: FastifyInstance,
  { env, clientAddresses = SOCKET_ADDRESSES }: TaskRoutesOptions,
) {
  // Checked at start-up (config); read again here so a test can hand any environment.
  const client = new HostClient(parseHostSettings(env), env);
  const run = async (tool: string, input: unknown) => {
    const op = BY_TOOL.get(tool);
    if (!op) throw new BridgeError('INTERNAL_ERROR', `No operation ${tool}`);
    return dataOf(await runOperation(op, input, { client }));
  };

  // Addressed by a loopback name only (DNS rebinding; the door's guards answer 421), from a loopback client only.
  localRoutes(app);
  app.addHook(
    'onRequest',
    loopbackOnly(clientAddresses, () => false, FORBIDDEN),
  );
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const { status, body } = taskError(error);
    if (status >= 500 && !(error instanceof BridgeError))
      request.log.error({ err: error, url: request.url }, 'task request failed');
    return reply.code(status).send(body);
  });
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  app.get('/api/tasks/today', async (_request, reply) => {
    noStore(reply);
    // Done ones too: an operator who ticks a task off today still sees it, and can undo that.
    return run('list_tasks', { tagId: 'TODAY', includeDone: true });
  });

  app.get('/api/tasks/current', async (_request, reply) => {
    noStore(reply);
    const task = await run('get_current_task', {});
    return { task: task === null ? null : compact(task, 'task') };
  });

  app.post('/api/tasks', async (request, reply) => {
    // Added on the Tasks page, whose list is today's: planned for today (the task app's TODAY is
    // the tasks due today, by the workstation's calendar), or it would never appear there.
    const task = await run('create_task', {
      ...createInput(request.body),
      dueDay: formatLocalDate(Date.now()),
    });
    return reply.code(201).send(task);
  });

  app.post('/api/tasks/stop-current', async () => run('stop_current_task', {}));

  const byId: [string, string, (id: string) => unknown][] = [
    ['start', 'start_task', (id) => ({ id })],
    ['complete', 'complete_task', (id) => ({ id })],
    ['uncomplete', 'uncomplete_task', (id) => ({ id })],
    ['set-current', 'set_current_task', (id) => ({ taskId: id })],
  ];
  for (const [action, tool, input] of byId) {
    app.post<{ Params: { id: string } }>(`/api/tasks/:id/${action}`, async (request) => {
      const { id } = request.params;
      if (!s.id.safeParse(id).success)
        throw invalidField('id', 'must be 1 to 200 characters of A-Z, a-z, 0-9, _ or -');
      return run(tool, input(id));
    });
  }
}
