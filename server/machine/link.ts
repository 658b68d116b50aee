// The core's side of the machine process: finds the running one or starts it (spawn.ts),
// attaches to it with an events stream, keeps a mirror of its status, and restarts it if it dies,
// saying at which line the job stopped. Every machine call of the core (the winding door's
// `/stream/`, `towpath stream`, tests) goes through here; the LAN door forwards raw HTTP instead.
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { MachineError } from '../../engine/errors.ts';
import {
  CORE_ORIGINS_HEADER,
  CORE_PID_HEADER,
  type EstopResponse,
  EVENT_SEQ_HEADER,
  isBusy,
  MACHINE_PROCESS_ROUTES,
  MACHINE_ROUTES,
  type MachineFile,
  type ResumeJobRequest,
  type ResumeJobResponse,
  type SerialPortList,
  type StreamResponse,
} from '../../engine/machine/contract.ts';
import { MachineStateError } from '../../engine/machine/errors.ts';
import type { HostTimings } from '../../engine/machine/host.ts';
import type { Program } from '../../engine/machine/program.ts';
import type { JobOutcome, MachineEvent, MachineStatus } from '../../engine/machine/types.ts';
import { EventStreamParser } from '../../engine/text/event-stream.ts';
import { HttpError } from '../http/http-error.ts';
import type { Logger } from '../log.ts';
import { processExists } from '../process-exists.ts';
import { machineFilePath, readMachineFile } from './process/machine-file.ts';
import { findOrStartMachineProcess, type MachineProcessSettings } from './spawn.ts';

const JOB_POLL_MS = 100;
/** How often a link whose events stream ended looks whether the machine process still lives. */
const EXIT_POLL_MS = 50;
/**
 * The longest event (or unfinished line) kept from the machine door's events stream: its statuses
 * are a few hundred characters, so a longer one means the stream is broken, and it is read anew.
 */
const MAX_EVENT_CHARS = 1 << 20;

export const CRASH_MESSAGE = 'Machine process ended unexpectedly';
/** What machine calls answer while no machine process is attached yet (or again, after a crash). */
export const STARTING_MESSAGE = 'The machine process is starting; try again in a moment';

/**
 * A machine call made while no machine process is attached: 503, with `retry` when one is on its
 * way (starting, or restarting after a crash) rather than failed to start at all.
 */
export class MachineUnavailableError extends HttpError {
  override name = 'MachineUnavailableError';
  readonly retry: boolean;
  constructor(detail: string, retry: boolean) {
    super(503, detail);
    this.retry = retry;
  }
}

export interface MachineLinkOptions {
  dataDir: string;
  logger: Logger;
  /** The machine process's settings (it reads them from its environment, as config.ts does). */
  settings: MachineProcessSettings;
  /** Protocol timings for a machine process this core starts (tests shorten them). */
  timings?: Partial<HostTimings>;
  /** The LAN door's loopback origins, which the machine door then allows with CORS. */
  origins?: () => string[];
  /** The machine process's entry point; found beside this module (or the Electron bundle) by default. */
  entry?: string;
}

type Listener = (event: MachineEvent) => void;

const IDLE_STATUS: MachineStatus = { state: 'idle', port: null, baudRate: null, controller: null, job: null };

export class MachineLink {
  readonly #options: MachineLinkOptions;
  readonly #logger: Logger;
  #record: MachineFile | undefined;
  /** True while an events stream of the machine process is open: calls go through only then. */
  #attached = false;
  /** Why there is no machine process, once starting one has failed (machine calls answer this). */
  #failure: string | undefined;
  #child: ChildProcess | undefined;
  #mirror: MachineStatus = IDLE_STATUS;
  #seq = -1;
  readonly #listeners = new Set<Listener>();
  #events: AbortController | undefined;
  #stopped = false;
  #supervising: Promise<void> = Promise.resolve();
  /** While a job runs: the status is asked for now and then (events tell acknowledgements, not sends). */
  readonly #poll = setInterval(() => {
    if (this.#record && !this.#stopped && isBusy(this.#mirror.state)) void this.refresh().catch(() => {});
  }, JOB_POLL_MS);

  constructor(options: MachineLinkOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ part: 'machine-link' });
    this.#poll.unref();
  }

  /** The machine door's URL while the machine process is attached; else MachineUnavailableError. */
  get url(): string {
    if (this.#record && this.#attached) return this.#record.url;
    throw this.#failure
      ? new MachineUnavailableError(this.#failure, false)
      : new MachineUnavailableError(STARTING_MESSAGE, true);
  }

  /** Why the machine process could not be started, or undefined while it runs or is on its way. */
  get problem(): string | undefined {
    return this.#failure;
  }

  /**
   * Finishes a start begun with `locate()`: attaches, or, when no machine process could be started,
   * records why in one log line, and machine calls answer that reason (503) from then on.
   */
  async attachOrExplain(located: Promise<void>): Promise<void> {
    try {
      await located;
      await this.attach();
    } catch (error) {
      this.#explain(error);
    }
  }

  #explain(error: unknown) {
    const reason = (error as Error)?.message ?? String(error);
    this.#failure = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}`;
    this.#logger.error(`${this.#failure}; machine routes answer 503 until the core is restarted`);
  }

  get pid(): number | undefined {
    return this.#record?.pid;
  }

  /** Attaches to the running machine process of the data dir, or starts one. */
  async start(): Promise<void> {
    await this.locate();
    await this.attach();
  }

  /** Finds the data dir's machine process, or starts one (not attached yet). */
  async locate(): Promise<void> {
    this.#record = await this.#attachOrStart();
  }

  /**
   * A start that failed elsewhere (a door's port taken): stops waiting, and ends a machine process
   * this link started and nobody attached yet, without waiting for it to come up.
   */
  abandon(): void {
    this.#stopped = true;
    clearInterval(this.#poll);
    this.#events?.abort();
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null && this.#record === undefined)
      child.kill('SIGTERM');
    else void this.#release();
  }

  /** Detaches; a machine process with nothing to do then exits (one with a job keeps going). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#poll);
    this.#events?.abort();
    await this.#supervising.catch(() => {});
    await this.#release();
    this.#child?.unref();
  }

  async #release() {
    if (!this.#record) return;
    await fetch(`${this.#record.url}${MACHINE_PROCESS_ROUTES.release}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pid: process.pid }),
      signal: AbortSignal.timeout(2000),
    }).catch(() => {});
  }

  // --- the controller's API, over the machine door -------------------------------------------

  /** The last status the machine process reported (kept current by its events). */
  status(): MachineStatus {
    return this.#mirror;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async refresh(): Promise<MachineStatus> {
    return this.#call<MachineStatus>(MACHINE_ROUTES.status, undefined, 'GET');
  }

  listPorts(): Promise<SerialPortList> {
    return this.#call(MACHINE_ROUTES.ports, undefined, 'GET');
  }

  connect(port: string, baudRate?: number): Promise<MachineStatus> {
    return this.#call(MACHINE_ROUTES.connect, { port, ...(baudRate === undefined ? {} : { baudRate }) });
  }

  disconnect(): Promise<MachineStatus> {
    return this.#call(MACHINE_ROUTES.disconnect, {});
  }

  async send(command: string): Promise<string[]> {
    return (await this.#call<{ responses: string[] }>(MACHINE_ROUTES.command, { command })).responses;
  }

  async startJob(source: { gcode: string } | { path: string }): Promise<{ total: number }> {
    return this.#call(MACHINE_ROUTES.job, source);
  }

  /** Takes a stopped job up again from a checkpoint (the lead-in, then the tail); answers once it runs. */
  resumeJob(request: ResumeJobRequest): Promise<ResumeJobResponse> {
    return this.#call(MACHINE_ROUTES.resumeJob, request);
  }

  pause(): Promise<MachineStatus> {
    return this.#call(MACHINE_ROUTES.pause, {});
  }

  resume(): Promise<MachineStatus> {
    return this.#call(MACHINE_ROUTES.resume, {});
  }

  cancel(): Promise<MachineStatus> {
    return this.#call(MACHINE_ROUTES.cancel, {});
  }

  async emergencyStop(): Promise<boolean> {
    return (await this.#call<EstopResponse>(MACHINE_ROUTES.estop, {})).sent;
  }

  /**
   * A whole job, answered when it ends (the controller's `stream`): connects to `port` first if
   * needed and disconnects afterwards. Never rejects for a job that ran; its outcome says how it ended.
   */
  async stream(
    program: string | Program,
    port: string,
    baudRate?: number,
    name?: string,
  ): Promise<JobOutcome> {
    const gcode =
      typeof program === 'string' ? program : program.commands.map((command) => command.command).join('\n');
    // The program's name goes in the query, for the job history; the body is the G-code alone.
    const path =
      name === undefined
        ? MACHINE_ROUTES.stream
        : `${MACHINE_ROUTES.stream}?name=${encodeURIComponent(name)}`;
    const result = await this.#call<StreamResponse>(path, {
      gcode,
      port,
      ...(baudRate === undefined ? {} : { baudRate }),
    });
    // Its answer may overtake the events: the status is asked for, so it is current when this returns.
    await this.refresh().catch(() => {});
    return {
      status: result.status,
      sent: result.acknowledged,
      acknowledged: result.acknowledged,
      total: result.total,
      elapsed_s: result.elapsed_s,
      ...(result.detail ? { error: new MachineError(result.detail) } : {}),
    };
  }

  /** One request to the machine door; refusals come back as the errors the controller throws. */
  async #call<T>(path: string, body: unknown, method = 'POST'): Promise<T> {
    // Outside the try: no machine process attached is its own answer (503), not one that stopped answering.
    const url = this.url;
    let response: Response;
    try {
      response = await fetch(`${url}${path}`, {
        method,
        ...(method === 'POST'
          ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }
          : {}),
      });
    } catch (error) {
      throw new MachineError(`the machine process is not answering (${causeOf(error)})`);
    }
    const answer = (await response.json().catch(() => ({}))) as T & { detail?: string; status?: unknown };
    if (!response.ok) {
      const detail = answer.detail ?? `the machine door answered HTTP ${response.status}`;
      if (response.status === 409) throw new MachineStateError(detail);
      if (response.status === 502) throw new MachineError(detail);
      throw new HttpError(response.status, detail);
    }
    const seq = Number(response.headers.get(EVENT_SEQ_HEADER));
    const status = isStatus(answer) ? answer : isStatus(answer.status) ? answer.status : undefined;
    if (status && Number.isFinite(seq)) this.#apply(status, seq);
    return answer;
  }

  #apply(status: MachineStatus, seq: number) {
    if (seq < this.#seq) return;
    this.#seq = seq;
    this.#mirror = status;
  }

  #attachOrStart(): Promise<MachineFile> {
    const { dataDir, settings, timings, entry } = this.#options;
    return findOrStartMachineProcess({
      dataDir,
      logger: this.#logger,
      settings,
      timings,
      entry,
      abandoned: () => this.#stopped,
      forked: (child) => {
        this.#child = child;
      },
    });
  }

  // --- finding, starting and watching the process --------------------------------------------

  /** Opens the events stream that attaches this core; resolves once the first status arrived. */
  attach(): Promise<void> {
    const record = this.#record as MachineFile;
    const abort = new AbortController();
    this.#events = abort;
    let first!: () => void;
    let failed!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      first = resolve;
      failed = reject;
    });
    this.#supervising = (async () => {
      try {
        const response = await fetch(`${record.url}${MACHINE_ROUTES.events}`, {
          signal: abort.signal,
          headers: {
            accept: 'text/event-stream',
            [CORE_PID_HEADER]: String(process.pid),
            [CORE_ORIGINS_HEADER]: (this.#options.origins?.() ?? []).join(','),
          },
        });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        const parser = new EventStreamParser({
          maxEventSize: MAX_EVENT_CHARS,
          maxLineLength: MAX_EVENT_CHARS,
          onEvent: ({ type, data, lastEventId }) => {
            // The door names every event it sends.
            if (type === 'message') return;
            this.#receive(
              type,
              JSON.parse(data || 'null'),
              lastEventId === '' ? undefined : Number(lastEventId),
            );
            if (type === 'status') {
              this.#attached = true;
              first();
            }
          },
          onOversized: (size) => {
            throw new Error(`an event of ${size} characters from the machine door`);
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of response.body) parser.push(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        failed(error as Error);
        if (abort.signal.aborted) return;
      } finally {
        this.#attached = false;
      }
      if (!this.#stopped) await this.#lost(record);
    })();
    return ready;
  }

  #receive(name: string, data: unknown, id: number | undefined) {
    const seq = id ?? this.#seq;
    if (name === 'status') {
      this.#apply(data as MachineStatus, seq);
      return;
    }
    const event = { type: name, ...(data as object), seq } as MachineEvent;
    if (seq >= this.#seq) {
      this.#seq = seq;
      if (event.type === 'progress') {
        const { type: _type, seq: _seq, ...job } = event;
        this.#mirror = { ...this.#mirror, job };
      } else if (event.type === 'state') {
        const { message, ...rest } = this.#mirror;
        this.#mirror = {
          ...rest,
          state: event.state,
          ...(event.message === undefined ? {} : { message: event.message }),
        };
      }
    }
    this.#dispatch(event);
  }

  #dispatch(event: MachineEvent) {
    for (const listener of this.#listeners) listener(event);
  }

  /** The events stream ended: a passing hiccup (the process lives) or the process is gone. */
  async #lost(record: MachineFile) {
    const deadline = Date.now() + 5000;
    while (processExists(record.pid) && Date.now() < deadline) await delay(EXIT_POLL_MS);
    if (this.#stopped) return;
    if (processExists(record.pid)) {
      await this.attach().catch(() => {});
      return;
    }
    // An orderly exit removes machine.json first; a crash leaves it naming the dead process.
    const crashed = (await readMachineFile(this.#options.dataDir))?.pid === record.pid;
    if (crashed) {
      const job = this.#mirror.job;
      const message =
        job && isBusy(this.#mirror.state)
          ? `${CRASH_MESSAGE}; the job stopped at line ${job.acknowledged}`
          : CRASH_MESSAGE;
      this.#logger.error({ pid: record.pid }, message);
      this.#mirror = { ...this.#mirror, state: 'error', message };
      this.#seq += 1;
      this.#dispatch({ type: 'error', message, seq: this.#seq });
      this.#dispatch({ type: 'state', state: 'error', message, seq: this.#seq });
      await rm(machineFilePath(this.#options.dataDir), { force: true }).catch(() => {});
    }
    try {
      this.#record = await this.#attachOrStart();
      this.#seq = -1;
      await this.attach();
    } catch (error) {
      if (!this.#stopped) this.#explain(error);
    }
  }
}

function isStatus(value: unknown): value is MachineStatus {
  return typeof value === 'object' && value !== null && 'state' in value && 'job' in value;
}

function causeOf(error: unknown): string {
  return (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
}
