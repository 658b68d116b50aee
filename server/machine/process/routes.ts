// /api/machine/* on the machine door (the machine process's own loopback listener): the one machine
// controller's API. The LAN door forwards the same paths here (forward.ts). Every route moves or
// watches the machine, so all of them accept only clients on the workstation unless
// MACHINE_REMOTE_CONTROL=1. A job from a file path obeys the winding door's allowed roots
// (WINDING_ALLOWED_ROOTS): with remote control on, a LAN client must not be able to read, or wind,
// any file the app can open. Job bodies are decoded as they arrive into a temporary file
// (json-spool.ts): this event loop must stay free for the e-stop.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { MachineError } from '../../../engine/errors.ts';
import {
  CORE_ORIGINS_HEADER,
  CORE_PID_HEADER,
  type CommandResponse,
  commandRequest,
  connectRequest,
  EVENT_SEQ_HEADER,
  homeRequest,
  jobRequest,
  jogRequest,
  MACHINE_ROUTES,
  type StreamResponse,
  streamRequest,
  zeroRequest,
} from '../../../engine/machine/contract.ts';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import { ProgramError } from '../../../engine/machine/program.ts';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { loopbackOnly, SOCKET_ADDRESSES } from '../../http/client-address.ts';
import { HttpError } from '../../http/http-error.ts';
import { checkRequestPath, createPathPolicy } from '../../http/paths.ts';
import { openSse } from '../../http/sse.ts';
import { loadProgram, type MachineController } from './controller.ts';
import { throttleProgress } from './event-throttle.ts';
import { type SpooledBody, spoolJsonBody } from './json-spool.ts';

/** Largest job body (G-code sent by content); it goes to a temporary file, not into memory. */
export const JOB_BODY_LIMIT_BYTES = 512 * 1024 * 1024;

/** A core's events stream: it stays attached while the stream is open. */
export interface CoreAttachments {
  attach(pid: number, origins: string[]): () => void;
}

export interface MachineRoutesOptions {
  machine: MachineController;
  /** True when MACHINE_REMOTE_CONTROL lets LAN clients in. */
  allowRemote: () => boolean;
  /** WINDING_ALLOWED_ROOTS as configured: where `path` jobs may come from. */
  allowedRoots: string[];
  /** The machine process's record of attached cores; absent in a plain test app. */
  attachments?: CoreAttachments;
}

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

/** The decoded body of a request: small fields, and `gcode` spooled to a file when sent. */
function spooledOf(request: FastifyRequest): SpooledBody | undefined {
  const body = request.body as SpooledBody | undefined;
  return body && typeof body === 'object' && 'fields' in body ? body : undefined;
}

/** Validates the body with `gcode` standing in as a string, without ever reading it into memory. */
function checkSpooled<T>(schema: z.ZodType<T>, body: SpooledBody | undefined): T {
  const fields = body?.fields ?? {};
  return parseBody(schema, body?.spooled ? { ...fields, gcode: '' } : fields);
}

export async function machineRoutes(
  app: FastifyInstance,
  { machine, allowRemote, allowedRoots, attachments }: MachineRoutesOptions,
) {
  const policy = await createPathPolicy(allowedRoots);
  // Before the body is read: only clients on the workstation (the machine door listens on
  // loopback; the LAN door's forwarding judges LAN clients before it forwards).
  app.addHook('onRequest', loopbackOnly(SOCKET_ADDRESSES, allowRemote));
  app.addHook('onSend', async (_request, reply) => {
    reply.header(EVENT_SEQ_HEADER, String(machine.lastSeq));
  });
  // Every JSON body is decoded as a stream; only `gcode` may be large, and it never becomes a string.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    async (_request: FastifyRequest, payload: AsyncIterable<Buffer>) =>
      spoolJsonBody(payload, { spoolField: 'gcode', limitBytes: JOB_BODY_LIMIT_BYTES }),
  );
  // A temporary file never outlives its request, whatever the route did with it.
  app.addHook('onResponse', async (request) => {
    await spooledOf(request)?.discard();
  });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = machineStatusCode(error);
    if (status === undefined) throw error;
    return reply.code(status).send({ detail: error.message });
  });

  // Answered as soon as the client is known to be local, before the body is parsed: nothing, not
  // even an empty body sent as JSON, may stand between the request and M112.
  app.post(
    MACHINE_ROUTES.estop,
    {
      onRequest: async (_request, reply) => {
        const sent = machine.emergencyStop();
        return reply.send({ sent, status: machine.status() });
      },
    },
    async () => ({ sent: false, status: machine.status() }),
  );

  app.get(MACHINE_ROUTES.status, async () => machine.status());
  app.get(MACHINE_ROUTES.ports, async () => machine.listPorts());

  app.post(MACHINE_ROUTES.connect, async (request) => {
    const { port, baudRate, axisFormat } = parseBody(connectRequest, spooledOf(request)?.fields);
    return machine.connect(port, baudRate, axisFormat);
  });
  app.post(MACHINE_ROUTES.disconnect, async () => machine.disconnect());

  app.post(MACHINE_ROUTES.command, async (request): Promise<CommandResponse> => {
    const { command } = parseBody(commandRequest, spooledOf(request)?.fields);
    return { responses: await machine.send(command) };
  });
  app.post(MACHINE_ROUTES.home, async (request) => {
    const { axis } = parseBody(homeRequest, spooledOf(request)?.fields);
    return machine.home(axis);
  });
  app.post(MACHINE_ROUTES.jog, async (request) => {
    const { axis, step, feed } = parseBody(jogRequest, spooledOf(request)?.fields);
    return machine.jog(axis, step, feed);
  });
  app.post(MACHINE_ROUTES.zero, async (request) => {
    const { axis } = parseBody(zeroRequest, spooledOf(request)?.fields);
    return machine.zero(axis);
  });
  app.post(MACHINE_ROUTES.position, async () => machine.readPosition());
  app.post(MACHINE_ROUTES.motorsOff, async () => machine.motorsOff());

  app.post(MACHINE_ROUTES.job, async (request, reply) => {
    const body = spooledOf(request);
    const parsed = checkSpooled(jobRequest, body);
    const source = body?.spooled
      ? { path: body.spooled.path, shown: 'the job body', encoding: 'utf8' as const }
      : { path: await checkRequestPath(parsed.path as string, policy), shown: parsed.path as string };
    const { total } = await machine.startJob(source);
    return reply.code(202).send({ total, status: machine.status() });
  });

  app.post(MACHINE_ROUTES.stream, async (request): Promise<StreamResponse> => {
    const body = spooledOf(request);
    const { port, baudRate } = checkSpooled(streamRequest, body);
    const spooled = body?.spooled as { path: string };
    const program = await loadProgram({ path: spooled.path, shown: 'the job body', encoding: 'utf8' });
    await body?.discard();
    // The job is not aborted if the client leaves: it ends as it would have.
    const outcome = await machine.stream(program, port, baudRate);
    return {
      status: outcome.status,
      acknowledged: outcome.acknowledged,
      total: outcome.total,
      elapsed_s: outcome.elapsed_s,
      ...(outcome.error ? { detail: outcome.error.message } : {}),
    };
  });

  app.post(MACHINE_ROUTES.pause, async () => machine.pause());
  app.post(MACHINE_ROUTES.resume, async () => machine.resume());
  app.post(MACHINE_ROUTES.cancel, async () => machine.cancel());

  app.get(MACHINE_ROUTES.events, (request, reply) => {
    const pid = Number(request.headers[CORE_PID_HEADER]);
    const origins = String(request.headers[CORE_ORIGINS_HEADER] ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
    // A client that asked for `Connection: close` (a probe, a script) gets the status and the end.
    if (wantsClose(request.headers.connection)) {
      const once = openSse(reply, { headers: { connection: 'close' } });
      once.send('status', machine.status(), machine.lastSeq);
      once.end();
      return;
    }
    let detach = () => {};
    const stream = openSse(reply, {
      onClose: () => {
        throttle.stop();
        unsubscribe();
        detach();
      },
    });
    // The status first, then every event with its `seq` as the id; after each change of state the
    // whole status again (port, controller, job), under the same id, so a watcher never has to
    // rebuild it from events.
    stream.send('status', machine.status(), machine.lastSeq);
    const throttle = throttleProgress((event: MachineEvent) => {
      const { type, ...data } = event;
      stream.send(type, data, event.seq);
      if (type === 'state') stream.send('status', machine.status(), event.seq);
    });
    const unsubscribe = machine.subscribe((event) => throttle.push(event));
    if (attachments && Number.isSafeInteger(pid) && pid > 0) detach = attachments.attach(pid, origins);
  });
}

/** The client asked for `Connection: close`: it wants an answer that ends, not a stream. */
function wantsClose(connection: string | undefined): boolean {
  return (connection ?? '').split(',').some((token) => token.trim().toLowerCase() === 'close');
}
