// The Marlin protocol host (spec/winding.md §6): one connection, one line in flight, one job at a
// time. It never sends an acknowledged line twice and never skips one; anything it cannot recover
// from closes the port and ends in `error`, and nothing resumes by itself.
import { MachineError } from '../errors.ts';
import { type Clock, systemClock, type TimerHandle } from './clock.ts';
import { MachineStateError } from './errors.ts';
import {
  commandOf,
  frameLine,
  type Program,
  type ProgramCommand,
  ProgramError,
  SYNC_FRAME,
} from './program.ts';
import { classify, isAdvancedOk, type Received, ReceivedLineSplitter } from './received.ts';
import type { Transport, TransportOpener } from './transport.ts';
import type {
  AxisPosition,
  ControllerInfo,
  JobOutcome,
  JobPlace,
  JobPlaceMark,
  JobProgress,
  MachineEvent,
  MachineEventBody,
  MachineState,
  MachineStatus,
} from './types.ts';

export const DEFAULT_BAUD_RATE = 250000;

export interface HostTimings {
  /** No line from the controller for this long while a line is in flight fails the job. */
  idleTimeoutMs: number;
  /** Connect: the boot wait ends after this long without a line… */
  bootIdleMs: number;
  /** …or after this long in total. */
  bootTotalMs: number;
  /** Connect: how long each `M110` sync attempt waits for `ok`. */
  syncTimeoutMs: number;
  syncAttempts: number;
  /** Connect: `M115` answers are collected until `ok` or this long without a line. */
  identifyIdleMs: number;
  /** More resend requests than this for one line fail the job. */
  resendLimit: number;
}

export const DEFAULT_TIMINGS: HostTimings = {
  idleTimeoutMs: 10_000,
  bootIdleMs: 2_000,
  bootTotalMs: 10_000,
  syncTimeoutMs: 2_000,
  syncAttempts: 3,
  identifyIdleMs: 2_000,
  resendLimit: 5,
};

export interface MarlinHostOptions {
  open: TransportOpener;
  clock?: Clock;
  timings?: Partial<HostTimings>;
}

export interface RunningJob {
  total: number;
  /** Resolves when the job ends, however it ends; never rejects. */
  done: Promise<JobOutcome>;
}

export const BUSY_MESSAGE = 'Machine is busy with another job';
const NOT_CONNECTED = 'Machine is not connected';
const RESTARTED_DURING_JOB = "Controller restarted during the job (it sent 'start'); the job was aborted";
const RESTARTED_DURING_COMMAND = "Controller restarted (it sent 'start') before acknowledging the command";
const NO_ANSWER_ON_CONNECT = 'Controller did not respond on connect; check the port, baud rate and power';
const STAYS_HALTED =
  'The controller answered neither M999 nor a fresh connection: it stays halted. Press its reset button or switch it off and on, then connect';
const NO_EMERGENCY_PARSER =
  'The controller does not report EMERGENCY_PARSER: an emergency stop (M112) waits behind commands it has already queued';

interface Wait {
  idleMs: number;
  deadline: number;
  activityAt: number;
  onLine(line: string, received: Received): void;
  onTimeout(): void;
  fail(error: Error): void;
}

interface WaitSpec<T> {
  idleMs: number;
  totalMs?: number;
  onLine(line: string, received: Received, done: (value: T) => void): void;
  onTimeout(done: (value: T) => void): void;
}

interface Job {
  program: Program;
  sent: number;
  acknowledged: number;
  last: ProgramCommand | undefined;
  startedAt: number;
  pausedAt: number | undefined;
  pausedMs: number;
  paused: boolean;
  cancelRequested: boolean;
  gate: { resolve: () => void; reject: (error: Error) => void } | undefined;
  done: Promise<JobOutcome>;
  /** The program's places in text order, once read (see setJobPlaces). */
  places: JobPlaceMark[] | undefined;
}

export class MarlinHost {
  readonly timings: HostTimings;
  readonly #open: TransportOpener;
  readonly #clock: Clock;
  readonly #listeners = new Set<(event: MachineEvent) => void>();
  readonly #splitter = new ReceivedLineSplitter();

  #current: MachineState = 'idle';
  #message: string | undefined;
  #port: string | null = null;
  #baudRate: number | null = null;
  #controller: ControllerInfo | null = null;
  #seq = 0;

  #transport: Transport | undefined;
  /** Bumped whenever a connection ends, so a stale port's callbacks are ignored. */
  #connection = 0;
  /** Why the current connection failed; nothing is written once it is set. */
  #failure: MachineError | undefined;
  #wait: Wait | undefined;
  #timer: TimerHandle | undefined;
  /** When `#timer` fires (clock time). */
  #timerDue = Number.POSITIVE_INFINITY;
  #nextLine = 1;
  /** The controller restarted while no job ran; its line counter must be synced before the next line. */
  #resyncPending = false;
  /** Serialises framed lines: a manual command while paused waits for the job's in-flight line. */
  #lineLock: Promise<unknown> = Promise.resolve();
  /** The close of a port that failed (not awaited there: failing must not wait). */
  #failedClose: Promise<void> | undefined;
  /** Exchanges started through `#exclusive` and not settled yet. */
  #lineHolders = 0;
  #job: Job | undefined;
  #lastProgress: JobProgress | null = null;
  /** The last position the controller reported on this connection. */
  #position: AxisPosition | undefined;
  /**
   * Resetting: the halt being reset from may still be in the port's buffer (delivered as the port
   * opens, before any wait), so halts are passed over until `M999` has been answered.
   */
  #passHalts = false;

  constructor(options: MarlinHostOptions) {
    this.#open = options.open;
    this.#clock = options.clock ?? systemClock;
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
  }

  get state(): MachineState {
    return this.#current;
  }

  status(): MachineStatus {
    return {
      state: this.#current,
      ...(this.#message === undefined ? {} : { message: this.#message }),
      port: this.#port,
      baudRate: this.#baudRate,
      controller: this.#controller,
      job: this.#job ? this.#progressOf(this.#job) : this.#lastProgress,
      ...(this.#position === undefined ? {} : { position: this.#position }),
    };
  }

  /**
   * Records the position the controller reported (its `M114` answer, read by whoever sent it) and
   * tells the listeners; undefined once it is no longer known. A new connection forgets it.
   */
  notePosition(position: AxisPosition | undefined): void {
    if (position === undefined && this.#position === undefined) return;
    this.#position = position;
    this.#emit({ type: 'position', position: position ?? null });
  }

  /** Receives every event in order; returns the function that unsubscribes. */
  subscribe(listener: (event: MachineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Opens the port and runs the handshake: boot wait, `M110` sync, `M115` identify. With `reset`
   * (after an e-stop or a halt) the halted controller's last words in the port's buffer are passed
   * over and `M999` goes first: a firmware whose halt M999 clears answers it, and a board that resets
   * when its port opens answers it from a fresh start; one that answers neither stays halted.
   */
  async connect(
    port: string,
    baudRate: number = DEFAULT_BAUD_RATE,
    { reset = false }: { reset?: boolean } = {},
  ): Promise<MachineStatus> {
    if (this.#current === 'connecting') throw new MachineStateError(`Machine is connecting to ${this.#port}`);
    if (this.#job) throw new MachineStateError(BUSY_MESSAGE);
    if (this.#transport) {
      if (this.#port === port) return this.status();
      throw new MachineStateError(`Machine is connected to ${this.#port}; disconnect it first`);
    }
    const generation = ++this.#connection;
    this.#failure = undefined;
    this.#port = port;
    this.#baudRate = baudRate;
    this.#controller = null;
    this.#lastProgress = null;
    this.notePosition(undefined);
    this.#resyncPending = false;
    this.#passHalts = reset;
    this.#splitter.reset();
    this.#setState('connecting');

    let transport: Transport;
    try {
      // The port a failure closed may be this one, and not closed yet.
      await this.#failedClose;
      transport = await this.#open(port, baudRate);
    } catch (error) {
      const failure = new MachineError(`Could not open serial port ${port}: ${reasonOf(error)}`);
      if (generation === this.#connection) this.#failConnection(failure);
      throw this.#failure ?? failure;
    }
    if (generation !== this.#connection || this.#failure) {
      // Disconnected or emergency-stopped while the port was opening: it is closed unused.
      await transport.close().catch(() => {});
      throw this.#failure ?? new MachineError(`Connecting to ${port} was cancelled`);
    }
    this.#transport = transport;
    transport.onData((text) => {
      if (generation === this.#connection && !this.#failure) this.#receive(text);
    });
    transport.onClose((reason) => {
      if (generation === this.#connection && this.#transport === transport) {
        this.#failConnection(new MachineError(`Serial port ${port} closed: ${reason}`));
      }
    });

    let controller: ControllerInfo;
    try {
      await this.#bootWait();
      if (reset) await this.#restart();
      await this.#sync();
      controller = await this.#identify();
    } catch (error) {
      this.#failConnection(asMachineError(error));
      throw this.#failure ?? error;
    }
    const warning = controller.capabilities.EMERGENCY_PARSER ? undefined : NO_EMERGENCY_PARSER;
    this.#setState('ready', warning);
    return this.status();
  }

  /** Closes the port; refused while a job runs (cancel it first). */
  async disconnect(): Promise<void> {
    if (this.#job) throw new MachineStateError('Machine is busy with a job; cancel it first');
    if (this.#current === 'connecting') {
      this.#failConnection(new MachineError(`Disconnected from ${this.#port} while connecting`));
    }
    const transport = this.#transport;
    this.#transport = undefined;
    this.#connection++;
    this.#endWait();
    if (transport) await transport.close().catch(() => {});
    // A port a failure closed may still be closing: once this returns, it can be opened again.
    await this.#failedClose;
    this.#port = null;
    this.#baudRate = null;
    this.#controller = null;
    this.notePosition(undefined);
    this.#setState('idle');
  }

  /**
   * Sends one command framed, outside any job (or while a job is paused), and resolves with the
   * controller's lines up to and including its `ok`. `M112` goes the emergency-stop way.
   */
  async send(text: string): Promise<string[]> {
    return this.#sendOne(text, ['ready', 'completed', 'cancelled', 'paused']);
  }

  /**
   * Sends one command framed while a job streams: it goes after the job's line in flight and ahead
   * of the job's next one (the line lock serves it first), so the controller has it within one line
   * of the request. For settings that apply to what follows, such as the feed override (`M220`).
   */
  sendBetweenLines(text: string): Promise<string[]> {
    return this.#sendOne(text, ['ready', 'completed', 'cancelled', 'paused', 'streaming']);
  }

  async #sendOne(text: string, allowed: MachineState[]): Promise<string[]> {
    if (/[\r\n]/.test(text)) throw new ProgramError('A manual command must be a single line');
    let command: string | undefined;
    try {
      command = commandOf(text, 1);
    } catch (error) {
      throw new ProgramError(capitalise((error as Error).message.replace(/^Line 1: /, '')));
    }
    if (command === undefined) throw new ProgramError('Command is empty (comments are not sent)');
    if (/^M112(\s|$)/i.test(command)) {
      if (!this.emergencyStop()) throw new MachineStateError(NOT_CONNECTED);
      return [];
    }
    this.#checkConnected(allowed);
    const framed = command;
    const responses: string[] = [];
    try {
      await this.#exclusive(async () => {
        await this.#resyncIfNeeded();
        await this.#sendFramed(framed, responses);
      });
    } catch (error) {
      this.#failConnection(asMachineError(error));
      throw this.#failure ?? error;
    }
    return responses;
  }

  /** Starts streaming; refused unless connected and no job runs. The job runs on after this returns. */
  startJob(program: Program): RunningJob {
    if (program.total === 0) throw new ProgramError('G-code program contained no commands');
    this.#checkConnected(['ready', 'completed', 'cancelled']);
    let resolveDone!: (outcome: JobOutcome) => void;
    const job: Job = {
      program,
      sent: 0,
      acknowledged: 0,
      last: undefined,
      startedAt: this.#clock.now(),
      pausedAt: undefined,
      pausedMs: 0,
      paused: false,
      cancelRequested: false,
      gate: undefined,
      done: new Promise((resolve) => {
        resolveDone = resolve;
      }),
      places: undefined,
    };
    this.#job = job;
    this.#lastProgress = null;
    this.#setState('streaming');
    void this.#runJob(job).then(resolveDone);
    return { total: program.total, done: job.done };
  }

  /**
   * The running job's places (layer and circuit starts by text line), read after it started: its
   * progress names the place of its last acknowledged command from then on. Ignored unless the job
   * still running is the one for `program`.
   */
  setJobPlaces(program: Program, places: JobPlaceMark[]): void {
    const job = this.#job;
    if (!job || job.program !== program) return;
    job.places = places;
  }

  /** No new line after the in-flight one; motion already queued in the controller still runs. */
  pause(): void {
    const job = this.#requireJob();
    if (job.paused || job.cancelRequested) return;
    job.paused = true;
    this.#setState('paused');
  }

  resume(): void {
    const job = this.#requireJob();
    if (!job.paused || job.cancelRequested) return;
    job.paused = false;
    this.#setState('streaming');
    const gate = job.gate;
    job.gate = undefined;
    gate?.resolve();
  }

  /**
   * Stops at the next line boundary; the job ends `cancelled` and the connection stays open. A
   * second cancel while the first still waits on a line in flight aborts (see `abort`), so no
   * caller waits on a controller that never answers.
   */
  cancel(): void {
    const job = this.#requireJob();
    if (job.cancelRequested && this.#lineInFlight(job)) {
      this.abort();
      return;
    }
    job.cancelRequested = true;
    const gate = job.gate;
    job.gate = undefined;
    gate?.resolve();
  }

  /**
   * Writes `M112` at once, ahead of any in-flight wait, lock or queue, then sends nothing more and
   * closes the port. Returns false when there was no port to write to.
   */
  emergencyStop(): boolean {
    const transport = this.#transport;
    let written = false;
    if (transport && !this.#failure) {
      try {
        transport.writeUrgent('M112\n');
        written = true;
      } catch {
        // The port is already gone; failing the connection below still stops the job.
      }
    }
    if (written) this.#emit({ type: 'log', direction: 'tx', text: 'M112' });
    if (transport || this.#current === 'connecting') this.#failConnection(new MachineError('Emergency stop'));
    return written;
  }

  /**
   * Ends the job now without waiting for the line in flight: nothing more is written (no `M112`;
   * motion already queued in the controller still runs), the port closes and the job ends in
   * `error` with `Aborted while line {k} was in flight`. Outside a job it disconnects. Returns the
   * message, or undefined when there was nothing to abort.
   */
  abort(): string | undefined {
    const job = this.#job;
    if (!job) {
      if (this.#current === 'connecting' || this.#transport) void this.disconnect().catch(() => {});
      return undefined;
    }
    const message = this.#lineInFlight(job)
      ? `Aborted while line ${job.sent} was in flight`
      : `Aborted after line ${job.acknowledged} of ${job.program.total}`;
    this.#failConnection(new MachineError(message));
    return message;
  }

  #lineInFlight(job: Job): boolean {
    return job.sent > job.acknowledged;
  }

  /**
   * For shutting down: cancels a running job and waits up to `graceMs` for its in-flight line,
   * then closes the port whatever happened.
   */
  async close(graceMs = 2_000): Promise<void> {
    const job = this.#job;
    if (job) {
      this.cancel();
      let timer: TimerHandle | undefined;
      const ended = await Promise.race([
        job.done.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = this.#clock.setTimeout(() => resolve(false), graceMs);
        }),
      ]);
      this.#clock.clearTimeout(timer);
      if (!ended) this.#failConnection(new MachineError('Towpath shut down while a line was in flight'));
      await job.done;
    }
    await this.disconnect();
  }

  // ── job ──────────────────────────────────────────────────────────────────────────────────────

  async #runJob(job: Job): Promise<JobOutcome> {
    const { commands } = job.program;
    // A line's progress is reported once the next line is on its way, not before: the controller
    // then works on that line while the listeners run, instead of waiting for them.
    let unreported = false;
    const report = () => {
      if (!unreported) return;
      unreported = false;
      this.#emit(this.#progressOf(job, 'progress'));
    };
    try {
      await this.#exclusive(() => this.#resyncIfNeeded());
      for (let i = 0; i < commands.length; i++) {
        if (this.#failure) throw this.#failure;
        if (job.paused && !job.cancelRequested) {
          report();
          // The clock stops at the boundary, once the in-flight line is acknowledged.
          job.pausedAt = this.#clock.now();
          try {
            await new Promise<void>((resolve, reject) => {
              job.gate = { resolve, reject };
            });
          } finally {
            job.pausedMs += this.#clock.now() - job.pausedAt;
            job.pausedAt = undefined;
          }
        }
        if (job.cancelRequested) break;
        const entry = commands[i] as ProgramCommand;
        job.sent = i + 1;
        const acknowledged = this.#exclusive(() => this.#sendFramed(entry.command));
        report();
        await acknowledged;
        job.acknowledged = i + 1;
        job.last = entry;
        unreported = true;
      }
      report();
    } catch (error) {
      report();
      const failure = this.#failure ?? asMachineError(error);
      this.#lastProgress = this.#progressOf(job);
      this.#job = undefined;
      this.#failConnection(failure);
      return this.#outcome(job, 'error', failure);
    }
    this.#lastProgress = this.#progressOf(job);
    this.#job = undefined;
    const outcome = this.#outcome(job, job.acknowledged === job.program.total ? 'completed' : 'cancelled');
    if (outcome.status === 'completed') {
      this.#emit({
        type: 'complete',
        acknowledged: job.acknowledged,
        total: job.program.total,
        elapsed_s: outcome.elapsed_s,
      });
      this.#setState('completed');
    } else {
      this.#setState('cancelled', `Cancelled after line ${job.acknowledged} of ${job.program.total}`);
    }
    return outcome;
  }

  #outcome(job: Job, status: JobOutcome['status'], error?: Error): JobOutcome {
    return {
      status,
      sent: job.sent,
      acknowledged: job.acknowledged,
      total: job.program.total,
      elapsed_s: this.#elapsedMs(job) / 1000,
      ...(error ? { error } : {}),
    };
  }

  #elapsedMs(job: Job): number {
    return (job.pausedAt ?? this.#clock.now()) - job.startedAt - job.pausedMs;
  }

  /** The job's progress; with `type`, as a progress event's body (one object a line, not two). */
  #progressOf(job: Job): JobProgress;
  #progressOf(job: Job, type: 'progress'): MachineEventBody;
  #progressOf(job: Job, type?: 'progress'): JobProgress | MachineEventBody {
    const elapsed = this.#elapsedMs(job) / 1000;
    const { acknowledged } = job;
    const total = job.program.total;
    const progress: JobProgress = {
      sent: job.sent,
      acknowledged,
      total,
      line: acknowledged,
      sourceLine: job.last?.sourceLine ?? 0,
      command: job.last?.command ?? '',
      elapsed_s: elapsed,
      // Before the first acknowledgement there is no rate to extrapolate from.
      remaining_s: acknowledged > 0 ? (elapsed / acknowledged) * (total - acknowledged) : 0,
    };
    const place = job.places ? placeAt(job.places, progress.sourceLine) : undefined;
    if (place) progress.place = place;
    if (type) (progress as MachineEventBody).type = type;
    return progress;
  }

  #requireJob(): Job {
    if (!this.#job) throw new MachineStateError('No job is running');
    return this.#job;
  }

  #checkConnected(allowed: MachineState[]) {
    if (allowed.includes(this.#current) && this.#transport) return;
    if (this.#job) throw new MachineStateError(BUSY_MESSAGE);
    if (this.#current === 'connecting') throw new MachineStateError(`Machine is connecting to ${this.#port}`);
    throw new MachineStateError(NOT_CONNECTED);
  }

  // ── lines ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Runs `work` once every line exchange started before it has settled. With none outstanding it
   * starts at once, not a microtask later: a job's next line then leaves in the same turn of the
   * event loop as the `ok` that freed it.
   */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lineHolders === 0 ? work() : this.#lineLock.then(work);
    this.#lineHolders++;
    // Settles before the caller's own continuation runs (registered first), so a caller that
    // awaits `run` and starts the next exchange finds the lock free.
    this.#lineLock = run.then(
      () => {
        this.#lineHolders--;
      },
      () => {
        this.#lineHolders--;
      },
    );
    return run;
  }

  /** Writes `N{k} …` and waits for its acknowledgement, resending on request (§6.4). */
  #sendFramed(command: string, responses?: string[]): Promise<void> {
    const number = this.#nextLine;
    const frame = `${frameLine(number, command)}\n`;
    // Manual commands collect responses and are logged; job lines are reported as progress.
    const logged = responses !== undefined;
    let resends = 0;
    // Marlin follows each `Resend:` with one `ok` that acknowledges nothing.
    let swallow = false;
    const acknowledged = this.#waitFor<void>({
      idleMs: this.timings.idleTimeoutMs,
      onLine: (line, received, done) => {
        switch (received.kind) {
          case 'ack':
            if (swallow) {
              swallow = false;
              return;
            }
            responses?.push(line);
            this.#nextLine = number + 1;
            done();
            return;
          case 'resend':
            if (received.line !== number) {
              this.#failConnection(
                new MachineError(
                  `Controller requested a resend of line ${received.line}, but line ${number} is the one in flight`,
                ),
              );
              return;
            }
            resends++;
            if (resends > this.timings.resendLimit) {
              this.#failConnection(
                new MachineError(
                  `Controller requested a resend of line ${number} more than ${this.timings.resendLimit} times`,
                ),
              );
              return;
            }
            swallow = true;
            this.#writeLine(frame, true);
            return;
          case 'start':
            this.#failConnection(
              new MachineError(this.#job ? RESTARTED_DURING_JOB : RESTARTED_DURING_COMMAND),
            );
            return;
          case 'halt':
          case 'fatal':
            this.#failConnection(fatalError(line, received));
            return;
          default:
            if (received.kind !== 'keep-alive' && received.kind !== 'idle') responses?.push(line);
        }
      },
      onTimeout: () =>
        this.#failConnection(
          new MachineError(
            `No response from the controller within ${this.timings.idleTimeoutMs / 1000} s (waiting for line ${number})`,
          ),
        ),
    });
    this.#writeLine(frame, logged);
    return acknowledged;
  }

  async #resyncIfNeeded() {
    if (!this.#resyncPending) return;
    this.#resyncPending = false;
    await this.#sync();
  }

  // ── connect ──────────────────────────────────────────────────────────────────────────────────

  /**
   * Boards reset when the port opens; their banner ends in silence (or, rarely, an `ok`). When
   * resetting, a halt read here is the one being reset from, left in the port's buffer.
   */
  #bootWait(): Promise<void> {
    return this.#waitFor<void>({
      idleMs: this.timings.bootIdleMs,
      totalMs: this.timings.bootTotalMs,
      onLine: (line, received, done) => {
        if (received.kind === 'ack') done();
        else if ((received.kind === 'halt' || received.kind === 'fatal') && !this.#passHalts)
          this.#failConnection(fatalError(line, received));
      },
      onTimeout: (done) => done(),
    });
  }

  /** `M999`, unframed (the line counter is synced next); a controller that stays silent stays halted. */
  async #restart(): Promise<void> {
    const answered = this.#waitFor<boolean>({
      idleMs: this.timings.syncTimeoutMs,
      totalMs: this.timings.syncTimeoutMs,
      onLine: (line, received, done) => {
        if (received.kind === 'ack') done(true);
        else if (received.kind === 'fatal') this.#failConnection(fatalError(line, received));
      },
      onTimeout: (done) => done(false),
    });
    this.#writeLine('M999\n', true);
    if (!(await answered)) throw new MachineError(STAYS_HALTED);
    this.#passHalts = false;
  }

  async #sync(): Promise<void> {
    for (let attempt = 0; attempt < this.timings.syncAttempts; attempt++) {
      // A line error means this `ok` answers the garbled line, not the M110: try again.
      let garbled = false;
      const synced = this.#waitFor<boolean>({
        idleMs: this.timings.syncTimeoutMs,
        totalMs: this.timings.syncTimeoutMs,
        onLine: (line, received, done) => {
          if (received.kind === 'ack') done(!garbled);
          else if (received.kind === 'resend' || received.kind === 'line-error') garbled = true;
          else if (received.kind === 'halt' || received.kind === 'fatal')
            this.#failConnection(fatalError(line, received));
        },
        onTimeout: (done) => done(false),
      });
      this.#writeLine(`${SYNC_FRAME}\n`, true);
      if (await synced) {
        this.#nextLine = 1;
        return;
      }
    }
    throw new MachineError(NO_ANSWER_ON_CONNECT);
  }

  async #identify(): Promise<ControllerInfo> {
    const capabilities: Record<string, boolean> = {};
    let firmware: string | null = null;
    let advancedOk = false;
    const identified = this.#waitFor<void>({
      idleMs: this.timings.identifyIdleMs,
      totalMs: this.timings.bootTotalMs,
      onLine: (line, received, done) => {
        switch (received.kind) {
          case 'ack':
            advancedOk = isAdvancedOk(line);
            done();
            return;
          case 'halt':
          case 'fatal':
            this.#failConnection(fatalError(line, received));
            return;
          case 'start':
            this.#resyncPending = true;
            return;
          case 'log': {
            if (line.startsWith('FIRMWARE_NAME:')) firmware = firmwareName(line);
            const cap = /^Cap:([A-Za-z0-9_]+):([01])$/.exec(line);
            if (cap) capabilities[cap[1] as string] = cap[2] === '1';
          }
        }
      },
      onTimeout: (done) => done(),
    });
    this.#writeLine('M115\n', true);
    await identified;
    this.#controller = { firmware, capabilities, advancedOk };
    return this.#controller;
  }

  // ── plumbing ─────────────────────────────────────────────────────────────────────────────────

  #receive(text: string) {
    for (const line of this.#splitter.push(text)) {
      if (this.#failure) return;
      this.#handleLine(line);
    }
  }

  #handleLine(line: string) {
    const received = classify(line);
    // `wait` is sent when the controller's queue runs empty, also after it dropped the line in
    // flight: counting it as an answer would wait for that line for ever (§6.2 row 5a).
    if (this.#wait && received.kind !== 'idle') this.#wait.activityAt = this.#clock.now();
    if (received.kind === 'action') this.#emit({ type: 'action', text: received.text });
    // Job acknowledgements are reported as progress; logging each one would drown everything else.
    else if (received.kind !== 'ack' || !this.#job) this.#emit({ type: 'log', direction: 'rx', text: line });
    if (received.kind === 'keep-alive' && received.waitingForUser) {
      this.#emit({ type: 'waiting-for-user', text: line });
    }
    if (this.#wait) {
      this.#wait.onLine(line, received);
      return;
    }
    // Between lines: nothing is in flight, but the controller can still die or restart.
    if ((received.kind === 'halt' || received.kind === 'fatal') && !this.#passHalts)
      this.#failConnection(fatalError(line, received));
    else if (received.kind === 'start') {
      if (this.#job) this.#failConnection(new MachineError(RESTARTED_DURING_JOB));
      else this.#resyncPending = true;
    }
  }

  #writeLine(data: string, logged: boolean) {
    const transport = this.#transport;
    if (!transport || this.#failure) return;
    try {
      transport.write(data);
    } catch (error) {
      this.#failConnection(new MachineError(`Serial port ${this.#port} closed: ${reasonOf(error)}`));
      return;
    }
    if (logged) this.#emit({ type: 'log', direction: 'tx', text: data.trimEnd() });
  }

  #waitFor<T>(spec: WaitSpec<T>): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      const now = this.#clock.now();
      const wait: Wait = {
        idleMs: spec.idleMs,
        deadline: spec.totalMs === undefined ? Number.POSITIVE_INFINITY : now + spec.totalMs,
        activityAt: now,
        onLine: (line, received) => spec.onLine(line, received, done),
        onTimeout: () => spec.onTimeout(done),
        fail: reject,
      };
      // The timer stays armed from one wait to the next (a job's lines follow one another within
      // microseconds): setting and clearing a timer for every line was a measurable part of the
      // time between an `ok` and the next line. endWait clears it when waiting stops for good.
      const done = (value: T) => {
        if (this.#wait === wait) this.#wait = undefined;
        resolve(value);
      };
      this.#wait = wait;
      this.#armTimer();
    });
  }

  #endWait() {
    this.#wait = undefined;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Makes sure the current wait's deadline is checked no later than it is due. */
  #armTimer() {
    const wait = this.#wait;
    if (!wait) return;
    const due = Math.min(wait.activityAt + wait.idleMs, wait.deadline);
    // A timer due no later than this wait's deadline checks it then, and re-arms for the rest.
    if (this.#timer !== undefined && this.#timerDue <= due) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        const current = this.#wait;
        if (!current) return;
        // Lines that arrived meanwhile, or a newer wait, moved the deadline; check again then.
        if (this.#clock.now() >= Math.min(current.activityAt + current.idleMs, current.deadline))
          current.onTimeout();
        else this.#armTimer();
      },
      Math.max(0, due - this.#clock.now()),
    );
  }

  /** Ends the connection for good: the port closes, waiters fail, the state becomes `error`. */
  #failConnection(error: MachineError) {
    if (this.#failure) return;
    this.#failure = error;
    const transport = this.#transport;
    this.#transport = undefined;
    if (transport) this.#failedClose = transport.close().catch(() => {});
    const wait = this.#wait;
    this.#endWait();
    wait?.fail(error);
    const gate = this.#job?.gate;
    if (this.#job) this.#job.gate = undefined;
    gate?.reject(error);
    // Steps may have been lost (an e-stop, a dead controller): the last report no longer holds.
    this.notePosition(undefined);
    this.#emit({ type: 'error', message: error.message });
    this.#setState('error', error.message);
  }

  #setState(state: MachineState, message?: string) {
    this.#current = state;
    this.#message = message;
    this.#emit(message === undefined ? { type: 'state', state } : { type: 'state', state, message });
  }

  /** `body` is the caller's own new object: it becomes the event (a progress event comes every line). */
  #emit(body: MachineEventBody) {
    const event = body as MachineEvent;
    event.seq = ++this.#seq;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not break the protocol.
      }
    }
  }
}

function fatalError(line: string, received: Received): MachineError {
  return received.kind === 'fatal'
    ? new MachineError(`Controller error: ${received.text}`)
    : new MachineError(`Controller halted: ${line}`);
}

function firmwareName(line: string): string {
  const value = line.slice('FIRMWARE_NAME:'.length);
  // M115 puts every field on one line; the name runs up to the next `KEY:`.
  const next = /\s[A-Z_]+:/.exec(value);
  return (next ? value.slice(0, next.index) : value).trim();
}

function asMachineError(error: unknown): MachineError {
  return error instanceof MachineError ? error : new MachineError(reasonOf(error));
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The last place starting at or before a text line (binary search: places are in text order). */
function placeAt(places: JobPlaceMark[], line: number): JobPlace | undefined {
  let low = 0;
  let high = places.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((places[mid] as JobPlaceMark).line <= line) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? undefined : (places[low - 1] as JobPlaceMark).place;
}
