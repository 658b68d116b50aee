// /api/machine/* on the machine door (the machine process's own loopback listener): the one machine
// controller's API. The LAN door forwards the same paths here (forward.ts). Every route moves or
// watches the machine, so all of them accept only clients on the workstation unless
// MACHINE_REMOTE_CONTROL=1. A job from a file path obeys the winding door's allowed roots
// (WINDING_ALLOWED_ROOTS): with remote control on, a LAN client must not be able to read, or wind,
// any file the app can open. Job bodies are decoded as they arrive into a temporary file
// (json-spool.ts): this event loop must stay free for the e-stop.
import { basename } from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { MachineError } from '../../../engine/errors.ts';
import {
  CORE_ORIGINS_HEADER,
  CORE_PID_HEADER,
  type CommandResponse,
  commandRequest,
  connectRequest,
  EVENT_SEQ_HEADER,
  feedRequest,
  fieldIssueMessage,
  homeRequest,
  jobQuery,
  jobRequest,
  jobsQuery,
  jogRequest,
  MACHINE_ROUTES,
  profileInput,
  resumeJobRequest,
  SoftLimitError,
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
import { loadJob, type MachineController } from './controller.ts';
import { throttleProgress } from './event-throttle.ts';
import { type JobHistory, jobsCsv } from './job-history.ts';
import { type SpooledBody, spoolJsonBody } from './json-spool.ts';
import type { ProfileStore } from './profiles.ts';
import { resumeJob } from './resume-job.ts';

/** Largest job body (G-code sent by content); it goes to a temporary file, not into memory. */
export const JOB_BODY_LIMIT_BYTES = 512 * 1024 * 1024;
/** Largest profile body: a profile is a few hundred bytes of JSON. */
const PROFILE_BODY_LIMIT_BYTES = 64 * 1024;

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
  /** Machine profiles and the job history (the machine database); their routes answer 503 without. */
  profiles?: ProfileStore;
  history?: JobHistory;
}

/**
 * The status code of an error a machine route raised, or undefined for the door's default. Unlike
 * the winding door's toHttpError, a MachineError keeps its own message (no `Streaming failed:`).
 */
function machineStatusCode(error: unknown): number | undefined {
  if (error instanceof MachineStateError || error instanceof SoftLimitError) return 409;
  if (error instanceof ProgramError) return 400;
  if (error instanceof MachineError) return 502;
  if (error instanceof HttpError) return error.status;
  return undefined;
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {}, { error: fieldIssueMessage });
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
  { machine, allowRemote, allowedRoots, attachments, profiles, history }: MachineRoutesOptions,
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
    const { port, baudRate, axisFormat, profileId } = parseBody(connectRequest, spooledOf(request)?.fields);
    if (profileId === undefined) return machine.connect(port as string, baudRate, axisFormat);
    const profile = needed(profiles).get(profileId);
    return machine.connect(profile.port, profile.baudRate, profile.axisFormat, profile);
  });

  const listJobs = (request: FastifyRequest) => {
    const query = parseQuery(jobsQuery, request.query);
    return { query, jobs: needed(history).list(query) };
  };
  app.get(MACHINE_ROUTES.jobs, async (request, reply) => {
    const { query, jobs } = listJobs(request);
    if (query.format === 'csv') return sendCsv(reply, jobsCsv(jobs));
    return { jobs };
  });
  app.get(MACHINE_ROUTES.jobsCsv, async (request, reply) => sendCsv(reply, jobsCsv(listJobs(request).jobs)));

  // Profiles are small nested documents, not jobs: parsed whole (and bounded) in a context of
  // their own, so the flat spooling parser above never sees them.
  await app.register(async (child) => {
    child.removeContentTypeParser('application/json');
    child.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: PROFILE_BODY_LIMIT_BYTES },
      (_request, text, done) => {
        try {
          done(null, { profileBody: text === '' ? {} : JSON.parse(text as string) });
        } catch (error) {
          done(new HttpError(400, `Invalid JSON body: ${(error as Error).message}`), undefined);
        }
      },
    );
    child.get(MACHINE_ROUTES.profiles, async () => ({ profiles: needed(profiles).list() }));
    child.post(MACHINE_ROUTES.profiles, async (request, reply) => {
      const fields = parseBody(profileInput, profileBodyOf(request));
      return reply.code(201).send(needed(profiles).create(fields));
    });
    child.get(MACHINE_ROUTES.profile, async (request) => needed(profiles).get(profileIdOf(request)));
    child.put(MACHINE_ROUTES.profile, async (request) => {
      const id = profileIdOf(request);
      const fields = parseBody(profileInput, profileBodyOf(request));
      const profile = needed(profiles).replace(id, fields);
      machine.profileChanged(profile);
      return profile;
    });
    child.delete(MACHINE_ROUTES.profile, async (request, reply) => {
      const id = profileIdOf(request);
      if (machine.profile?.id === id)
        throw new HttpError(409, 'This profile is in use by the open connection; disconnect first');
      needed(profiles).delete(id);
      return reply.code(204).send();
    });
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

  /** A job's program (sent as `gcode`, or a `path` within the allowed roots) and its name for the history. */
  const jobOf = async (request: FastifyRequest) => {
    const body = spooledOf(request);
    const parsed = checkSpooled(jobRequest, body);
    const source = body?.spooled
      ? { path: body.spooled.path, shown: 'the job body', encoding: 'utf8' as const }
      : { path: await checkRequestPath(parsed.path as string, policy), shown: parsed.path as string };
    const name = parseQuery(jobQuery, request.query).name ?? nameOf(parsed.path);
    return { source, label: { name } };
  };

  app.post(MACHINE_ROUTES.job, async (request, reply) => {
    const { source, label } = await jobOf(request);
    const { total } = await machine.startJob(source, label);
    return reply.code(202).send({ total, status: machine.status() });
  });

  app.post(MACHINE_ROUTES.dryRun, async (request) => {
    const { source, label } = await jobOf(request);
    return machine.dryRun(source, label);
  });

  app.post(MACHINE_ROUTES.stream, async (request): Promise<StreamResponse> => {
    const body = spooledOf(request);
    const { port, baudRate } = checkSpooled(streamRequest, body);
    const { name } = parseQuery(jobQuery, request.query);
    const spooled = body?.spooled as { path: string };
    const { program, sha256, text } = await loadJob({
      path: spooled.path,
      shown: 'the job body',
      encoding: 'utf8',
    });
    await body?.discard();
    // The job is not aborted if the client leaves: it ends as it would have.
    const outcome = await machine.stream(program, port, baudRate, undefined, { name, sha256, text });
    return {
      status: outcome.status,
      acknowledged: outcome.acknowledged,
      total: outcome.total,
      elapsed_s: outcome.elapsed_s,
      ...(outcome.error ? { detail: outcome.error.message } : {}),
    };
  });

  // A new job taking a stopped one up again from a checkpoint: the lead-in, then the program's tail.
  app.post(MACHINE_ROUTES.resumeJob, async (request, reply) => {
    const body = spooledOf(request);
    const parsed = checkSpooled(resumeJobRequest, body);
    const source = body?.spooled
      ? { path: body.spooled.path, encoding: 'utf8' as const, shown: 'the job body' }
      : {
          path: await checkRequestPath(parsed.path as string, policy),
          encoding: 'latin1' as const,
          shown: parsed.path as string,
        };
    return reply.code(202).send(await resumeJob(machine, parsed, source, history));
  });

  app.get(MACHINE_ROUTES.jobProgram, async (_request, reply) => {
    const job = machine.jobProgramText();
    if (!job)
      throw new HttpError(
        404,
        'No job program is kept: no job has run on this connection, or it was too large',
      );
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('x-job-sha256', job.program.sha256)
      .send(job.text);
  });
  app.post(MACHINE_ROUTES.feed, async (request) => {
    const { percent } = parseBody(feedRequest, spooledOf(request)?.fields);
    return machine.feedOverride(percent);
  });
  app.post(MACHINE_ROUTES.reset, async () => machine.reset());

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

/** A job from a file is named after it in the history unless the client named it. */
function nameOf(path: string | undefined): string | undefined {
  return path === undefined ? undefined : basename(path);
}

/** A profile body as its own parser wrapped it. */
function profileBodyOf(request: FastifyRequest): unknown {
  return (request.body as { profileBody?: unknown } | undefined)?.profileBody;
}

/** The machine database's parts; a plain test app without one answers 503. */
function needed<T>(part: T | undefined): T {
  if (part === undefined) throw new HttpError(503, 'The machine database is not open');
  return part;
}

function profileIdOf(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? '';
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1)
    throw new HttpError(400, `Invalid profile id '${raw}': must be a positive whole number`);
  return id;
}

function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(
    400,
    `Invalid query: ${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`,
  );
}

function sendCsv(reply: FastifyReply, csv: string) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="towpath-jobs.csv"')
    .send(csv);
}

/** The client asked for `Connection: close`: it wants an answer that ends, not a stream. */
function wantsClose(connection: string | undefined): boolean {
  return (connection ?? '').split(',').some((token) => token.trim().toLowerCase() === 'close');
}
