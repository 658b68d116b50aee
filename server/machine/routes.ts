// /api/machine/* on the LAN door: the renderer's machine panel. Every route moves or watches the
// machine, so all of them accept only clients on the workstation unless MACHINE_REMOTE_CONTROL=1.
// A job from a file path obeys the winding door's allowed roots (WINDING_ALLOWED_ROOTS): with
// remote control on, a LAN client must not be able to read, or wind, any file the app can open.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { MachineError } from '../../engine/errors.ts';
import { commandRequest, connectRequest, jobRequest } from '../../engine/machine/contract.ts';
import { MachineStateError } from '../../engine/machine/errors.ts';
import { ProgramError } from '../../engine/machine/program.ts';
import type { MachineEvent } from '../../engine/machine/types.ts';
import { localRoutes } from '../http/guards.ts';
import { loopbackOnly } from '../http/loopback.ts';
import { HttpError } from '../winding/http-error.ts';
import { checkRequestPath, createPathPolicy } from '../winding/paths.ts';
import type { MachineController } from './controller.ts';
import { throttleProgress } from './event-throttle.ts';

export interface MachineRoutesOptions {
  machine: MachineController;
  /** True when MACHINE_REMOTE_CONTROL lets LAN clients in. */
  allowRemote: () => boolean;
  /** WINDING_ALLOWED_ROOTS as configured: where `path` jobs may come from. */
  allowedRoots: string[];
}

const HEARTBEAT_MS = 15_000;

/**
 * The status code of an error a machine route raised, or undefined for the door's default. Unlike
 * the winding door's toHttpError, a MachineError keeps its own message (no `Streaming failed:`).
 */
function machineStatusCode(error: unknown): number | undefined {
  if (error instanceof MachineStateError) return 409;
  if (error instanceof ProgramError) return 400;
  if (error instanceof MachineError) return 502;
  if (error instanceof HttpError) return error.status;
  return undefined;
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  const message = issue?.message.endsWith('received undefined')
    ? 'Field required'
    : (issue?.message ?? 'invalid');
  throw new HttpError(400, `Invalid request body: ${field}: ${message}`);
}

export async function machineRoutes(
  app: FastifyInstance,
  { machine, allowRemote, allowedRoots }: MachineRoutesOptions,
) {
  const policy = await createPathPolicy(allowedRoots);
  // Before the body is read: a LAN client gets 403 whatever it sends, and a request addressed to
  // a name other than a loopback one (DNS rebinding) 421 from the door's guards.
  localRoutes(app, allowRemote);
  app.addHook('onRequest', loopbackOnly(allowRemote));
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = machineStatusCode(error);
    if (status === undefined) throw error;
    return reply.code(status).send({ detail: error.message });
  });

  // Answered as soon as the client is known to be local, before the body is parsed: nothing, not
  // even an empty body sent as JSON, may stand between the request and M112.
  app.post(
    '/api/machine/estop',
    {
      onRequest: async (_request, reply) => {
        const sent = machine.emergencyStop();
        return reply.send({ sent, status: machine.status() });
      },
    },
    async () => ({ sent: false, status: machine.status() }),
  );

  app.get('/api/machine/status', async () => machine.status());
  app.get('/api/machine/ports', async () => machine.listPorts());

  app.post('/api/machine/connect', async (request) => {
    const { port, baudRate } = parseBody(connectRequest, request.body);
    return machine.connect(port, baudRate);
  });
  app.post('/api/machine/disconnect', async () => machine.disconnect());

  app.post('/api/machine/command', async (request) => {
    const { command } = parseBody(commandRequest, request.body);
    return { responses: await machine.send(command) };
  });

  app.post('/api/machine/job', async (request, reply) => {
    const body = parseBody(jobRequest, request.body);
    const source =
      body.gcode !== undefined
        ? { gcode: body.gcode }
        : { path: await checkRequestPath(body.path as string, policy), shown: body.path as string };
    const { total } = await machine.startJob(source);
    return reply.code(202).send({ total, status: machine.status() });
  });

  app.post('/api/machine/pause', async () => machine.pause());
  app.post('/api/machine/resume', async () => machine.resume());
  app.post('/api/machine/cancel', async () => machine.cancel());

  app.get('/api/machine/events', (request, reply) => {
    const cleanup = streamEvents(machine, reply, wantsClose(request.headers.connection));
    request.raw.once('close', cleanup);
  });
}

/** The client asked for `Connection: close`: it wants an answer that ends, not a stream. */
function wantsClose(connection: string | undefined): boolean {
  return (connection ?? '').split(',').some((token) => token.trim().toLowerCase() === 'close');
}

/**
 * Server-sent events: the status first, then every event with its `seq` as the id. Returns the
 * function that ends the subscription (safe to call more than once). A client that asked for
 * `Connection: close` (a probe, a script) gets the status and the end of the stream, and the
 * connection is closed: nothing is held open for a client that said it will not wait.
 */
function streamEvents(machine: MachineController, reply: FastifyReply, close: boolean): () => void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: close ? 'close' : 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const write = (name: string, data: unknown, id?: number) => {
    if (raw.writableEnded || raw.destroyed) return;
    raw.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  write('status', machine.status());
  if (close) {
    raw.end();
    return () => {};
  }
  const throttle = throttleProgress((event: MachineEvent) => {
    const { type, ...data } = event;
    write(type, data, event.seq);
  });
  const unsubscribe = machine.subscribe((event) => throttle.push(event));
  const heartbeat = setInterval(() => {
    if (!raw.writableEnded && !raw.destroyed) raw.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  const cleanup = () => {
    clearInterval(heartbeat);
    throttle.stop();
    unsubscribe();
  };
  raw.once('close', cleanup);
  return cleanup;
}
