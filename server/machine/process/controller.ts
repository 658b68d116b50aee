// The one machine controller of a Towpath process: every path that moves the machine (the
// renderer's machine panel, `/stream/`, the CLI) goes through it, so there is one owner of the
// serial port and one job at a time.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { MachineError } from '../../../engine/errors.ts';
import type { Clock } from '../../../engine/machine/clock.ts';
import { checkConsoleMove, isConsoleMove } from '../../../engine/machine/console-move.ts';
import { isConnected, type ManualResponse } from '../../../engine/machine/contract.ts';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import {
  BUSY_MESSAGE,
  DEFAULT_BAUD_RATE,
  type HostTimings,
  MarlinHost,
  type RunningJob,
} from '../../../engine/machine/host.ts';
import {
  asksPosition,
  axisLetters,
  checkConsoleLine,
  homeCommand,
  jogCommands,
  type ManualAxis,
  MOTORS_OFF_COMMAND,
  movesOrSetsPosition,
  POSITION_COMMAND,
  parsePosition,
  zeroCommand,
} from '../../../engine/machine/manual.ts';
import {
  checkJog,
  checkJogFeed,
  DEFAULT_QUEUE_DEPTH,
  type MachineProfile,
  profileHomeCommand,
  SoftLimitError,
} from '../../../engine/machine/profile.ts';
import { type Program, ProgramError, prepareProgram } from '../../../engine/machine/program.ts';
import { softLimitCheck } from '../../../engine/machine/soft-limits.ts';
import type { TransportOpener } from '../../../engine/machine/transport.ts';
import type {
  AxisPosition,
  JobOutcome,
  JobProgram,
  MachineEvent,
  MachineStatus,
} from '../../../engine/machine/types.ts';
import { placeSlices } from '../../../engine/plan/checkpoints.ts';
import type { AxisFormat } from '../../../engine/plan/types.ts';
import type { Logger } from '../../log.ts';
import { type JobRecorder, recordJob } from './job-recording.ts';
import { listSerialPorts, type SerialPortList } from './ports.ts';
import { openSerialPort } from './serial-transport.ts';

export interface MachineControllerOptions {
  logger?: Logger;
  /** How ports are opened; real serial ports unless a test says otherwise. */
  open?: TransportOpener;
  clock?: Clock;
  timings?: Partial<HostTimings>;
  listPorts?: () => Promise<SerialPortList>;
  /** Where jobs are recorded as they start and end (the machine process's job history). */
  history?: JobRecorder;
}

/** What the job history says about a job besides its program: the file name the client gave. */
export interface JobLabel {
  name?: string | undefined;
  /** The job a resume takes up again (its id in the history). */
  continues?: number | undefined;
}

/**
 * A job's program: G-code text, or an absolute path to a G-code file (`shown` in messages; read as
 * Latin-1 unless `encoding` says otherwise, as for a job body spooled to a file).
 */
export type JobSource = { gcode: string } | { path: string; shown?: string; encoding?: BufferEncoding };

/**
 * The longest program text kept for watchers of a running job (the panel's 3D view of a job it did
 * not open): a job's commands are in memory anyway; a text beyond this is not kept twice.
 */
const KEPT_PROGRAM_CHARS = 64 * 1024 * 1024;

/** A manual action still queued or running: a job must not start between its lines. */
const MANUAL_IN_PROGRESS = 'A manual command is in progress; wait until it has finished';

export interface DryRunResult {
  commands_streamed: number;
  total_commands: number;
  dry_run: true;
}

export class MachineController {
  readonly host: MarlinHost;
  readonly #logger: Logger | undefined;
  readonly #listPortsImpl: () => Promise<SerialPortList>;
  /** Held by stream() from the request to the end of its job, connect phase included. */
  #reserved = false;
  /** `seq` of the last event: answers carry it so a watcher can order them among the events. */
  lastSeq = 0;
  /** Which letters the winder's axes have on the open connection. */
  #axisFormat: AxisFormat = 'xab';
  /**
   * Manual actions run one after another, never interleaved: a jog's `G91` … `G90` must not have
   * another line (a console move, a job's first line) between them.
   */
  #manualQueue: Promise<unknown> = Promise.resolve();
  /** Operator actions queued or running (the position read after a job is not one). */
  #manualActions = 0;
  /**
   * `G91` may be in force on the controller: a jog's `G90` was never acknowledged (the connection
   * failed between them; a board that does not reset on open keeps the mode) or the console set
   * it. Programs assume absolute mode, so `G90` goes first before the next job or manual action.
   */
  #relativeMode = false;
  /** The position was read on this connection: it is read again whenever a job ends. */
  #tracksPosition = false;
  /** The profile the open connection was made with: its limits govern manual moves and jobs. */
  #profile: MachineProfile | undefined;
  readonly #history: JobRecorder | undefined;
  /** Why the running job is ending, when the controller itself ended it (for the job history). */
  #ending: 'e-stopped' | 'aborted' | 'shut down' | undefined;
  /** The program of the job in the host's status (running or last), and its text when it was kept. */
  #job: { program: JobProgram; text: string | undefined } | undefined;
  /** The feed override last acknowledged on this connection (`M220 S…`). */
  #feedOverride: number | undefined;
  /** Where the last connection went, so a reset after an e-stop opens it again as it was. */
  #lastConnection:
    | { port: string; baudRate: number; axisFormat: AxisFormat; profile?: MachineProfile }
    | undefined;

  constructor(options: MachineControllerOptions = {}) {
    this.host = new MarlinHost({
      open: options.open ?? openSerialPort,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.timings ? { timings: options.timings } : {}),
    });
    this.#logger = options.logger?.child({ part: 'machine' });
    this.#listPortsImpl = options.listPorts ?? (() => listSerialPorts());
    this.#history = options.history;
    this.host.subscribe((event) => {
      this.lastSeq = event.seq;
      this.#log(event);
    });
  }

  status(): MachineStatus {
    const status = this.host.status();
    // The job's progress outlives its connection (an e-stop leaves it in the status): so does its program.
    const job = status.job && this.#job ? { program: this.#job.program } : {};
    if (!isConnected(status.state)) return { ...status, ...job };
    const profile = this.#profile ? { profile: { id: this.#profile.id, name: this.#profile.name } } : {};
    const feed = this.#feedOverride === undefined ? {} : { feedOverride: this.#feedOverride };
    return { ...status, axisFormat: this.#axisFormat, ...profile, ...job, ...feed };
  }

  /** The running (or last) job's program text, when it was kept (see KEPT_PROGRAM_CHARS). */
  jobProgramText(): { program: JobProgram; text: string } | undefined {
    const job = this.#job;
    if (!job?.text || !this.host.status().job) return undefined;
    return { program: job.program, text: job.text };
  }

  /**
   * `M220 S<percent>`: the controller's feed override, sent while a job streams ahead of its next
   * line (and outside a job like any line). It applies to moves planned after it.
   */
  async feedOverride(percent: number): Promise<MachineStatus> {
    const command = `M220 S${percent}`;
    const state = this.host.state;
    if (state === 'streaming' || state === 'paused') await this.host.sendBetweenLines(command);
    else {
      this.#refuseDuringJob();
      await this.#manual(() => this.#sendTracked(command));
    }
    this.#feedOverride = percent;
    return this.status();
  }

  /**
   * The way back after an e-stop or a halt: the port of the last connection is opened again and
   * `M999` sent before the handshake (see MarlinHost.connect). Refused while a job holds the machine.
   */
  async reset(): Promise<MachineStatus> {
    this.#ensureFree();
    const last = this.#lastConnection;
    if (!last) throw new MachineStateError('Nothing to reset: the machine has not been connected');
    if (this.host.state !== 'idle') await this.host.disconnect();
    this.#profile = last.profile;
    this.#tracksPosition = false;
    this.#feedOverride = undefined;
    await this.host.connect(last.port, last.baudRate, { reset: true });
    this.#axisFormat = last.axisFormat;
    return this.status();
  }

  subscribe(listener: (event: MachineEvent) => void): () => void {
    return this.host.subscribe(listener);
  }

  listPorts(): Promise<SerialPortList> {
    return this.#listPortsImpl();
  }

  async connect(
    port: string,
    baudRate: number = DEFAULT_BAUD_RATE,
    axisFormat: AxisFormat = 'xab',
    profile?: MachineProfile,
  ): Promise<MachineStatus> {
    this.#ensureFree();
    this.#profile = profile;
    const before = this.host.status();
    const reused = isConnected(before.state) && before.port === port;
    // Before the attempt: a reset after a failed connect tries the port asked for, not an older one.
    if (!isConnected(before.state) || reused)
      this.#lastConnection = { port, baudRate, axisFormat, ...(profile ? { profile } : {}) };
    await this.host.connect(port, baudRate);
    if (!reused) {
      this.#tracksPosition = false;
      this.#feedOverride = undefined;
    }
    // A position read with other letters is not this format's.
    if (axisFormat !== this.#axisFormat) this.host.notePosition(undefined);
    this.#axisFormat = axisFormat;
    return this.status();
  }

  async disconnect(): Promise<MachineStatus> {
    this.#ensureFree();
    // Only the position read after a job can be queued now; it takes a moment.
    await this.#manualQueue;
    await this.host.disconnect();
    return this.status();
  }

  /**
   * The console: one line, framed; resolves with the controller's answer up to its `ok`. `M112` is
   * the emergency stop whatever runs; anything else is refused during a job. A move or a new
   * origin typed here is followed by a position read, as after the jog pad's.
   */
  async send(command: string): Promise<string[]> {
    if (/^\s*M112(\s|;|$)/i.test(command)) {
      this.#ending = 'e-stopped';
      return this.host.send(command);
    }
    this.#refuseDuringJob();
    checkConsoleLine(command);
    return this.#manual(async () => {
      // A move typed here is held to the profile like a jog: its feed, and its target — a relative
      // one from the position (read first when not known), an absolute one as a one-line program.
      const profile = this.#profile;
      if (profile && isConsoleMove(command)) {
        const relative = this.#relativeMode;
        const position = this.host.status().position ?? (relative ? await this.#readPosition() : undefined);
        checkConsoleMove(profile, command, { axisFormat: this.#axisFormat, relative, position });
        if (!relative) await this.#checkSoftLimits(consoleMove(command));
      }
      const responses = await this.#sendTracked(command);
      if (asksPosition(command)) this.#notePosition(parsePosition(responses, this.#axisFormat));
      else if (movesOrSetsPosition(command)) await this.#readPosition().catch(() => undefined);
      return responses;
    });
  }

  /** `G28` for one axis or all (those the profile lets home); the position is read after it. */
  home(axis: ManualAxis | 'all' = 'all'): Promise<ManualResponse> {
    const command = this.#profile
      ? profileHomeCommand(this.#profile, axis)
      : homeCommand(this.#axisFormat, axis);
    return this.#manualAction([command]);
  }

  /**
   * A relative move of `step` (mm or degrees, signed) at `feed` per minute; then the position is
   * read. Under a profile it is checked first against the axis's maximum feed and soft limits
   * (reading the position if it is not known), and nothing moves when it would break them.
   */
  jog(axis: ManualAxis, step: number, feed: number): Promise<ManualResponse> {
    const commands = jogCommands(this.#axisFormat, axis, step, feed);
    const profile = this.#profile;
    if (!profile) return this.#manualAction(commands);
    checkJogFeed(profile, axis, feed);
    this.#refuseDuringJob();
    return this.#manual(async () => {
      const key = axis === 'X' ? 'x' : axis === 'A' ? 'a' : 'b';
      let from = this.host.status().position?.[key];
      const limits = profile.axes[axis];
      if (from === undefined && (limits.min !== null || limits.max !== null))
        from = (await this.#readPosition())?.[key];
      checkJog(profile, axis, step, feed, from);
      return this.#manualSteps(commands);
    });
  }

  /** Re-reads a profile that was edited; the open connection follows its new limits at once. */
  profileChanged(profile: MachineProfile): void {
    if (this.#profile?.id === profile.id) this.#profile = profile;
  }

  /** The profile the open connection was made with, if any. */
  get profile(): MachineProfile | undefined {
    return isConnected(this.host.state) ? this.#profile : undefined;
  }

  /** `G92`: where the axis (or every axis) stands becomes zero. */
  zero(axis: ManualAxis | 'all' = 'all'): Promise<ManualResponse> {
    return this.#manualAction([zeroCommand(this.#axisFormat, axis)]);
  }

  /** `M18`: the steppers go limp, so the mandrel can be turned by hand. */
  motorsOff(): Promise<ManualResponse> {
    return this.#manualAction([MOTORS_OFF_COMMAND]);
  }

  /** `M114`, read into X, A and B; a 502 when the answer has not all three. */
  readPosition(): Promise<ManualResponse> {
    return this.#manualAction([], { strict: true });
  }

  /** Starts a job on the open connection and returns once it runs; progress comes as events. */
  async startJob(source: JobSource, label: JobLabel = {}): Promise<{ total: number }> {
    this.#ensureFree();
    const { program, sha256, text } = await loadJob(source);
    this.#ensureFree();
    await this.#checkSoftLimits(program);
    await this.#restoreAbsolute();
    this.#ensureFree();
    this.#ending = undefined;
    const job = this.#startFollowed(program, sha256, label.name, text);
    this.#record(job.done, { program, sha256, name: label.name, dryRun: false, continues: label.continues });
    this.#jobStarted(job.done);
    return { total: job.total };
  }

  pause(): MachineStatus {
    this.host.pause();
    return this.status();
  }

  resume(): MachineStatus {
    this.host.resume();
    return this.status();
  }

  cancel(): MachineStatus {
    this.host.cancel();
    return this.status();
  }

  /**
   * Ends the job now without waiting for the line in flight (no `M112`); the port closes. Returns
   * the message the job ends with, or undefined when no job ran.
   */
  abort(): string | undefined {
    this.#ending = 'aborted';
    return this.host.abort();
  }

  /** `M112` now, out of band; false when no port was open to write it to. */
  emergencyStop(): boolean {
    this.#ending = 'e-stopped';
    return this.host.emergencyStop();
  }

  /**
   * §6.5 dry run: the program is checked (against the profile's soft limits too, when connected
   * with one) and counted; nothing is sent. It is recorded in the job history.
   */
  async dryRun(source: JobSource, label: JobLabel = {}): Promise<DryRunResult> {
    const { program, sha256 } = await loadJob(source);
    await this.#checkSoftLimits(program);
    const done = Promise.resolve({
      status: 'completed' as const,
      sent: 0,
      acknowledged: 0,
      total: program.total,
      elapsed_s: 0,
    });
    this.#record(done, { program, sha256, name: label.name, dryRun: true });
    return { commands_streamed: program.total, total_commands: program.total, dry_run: true };
  }

  /**
   * Streams a whole program and resolves when the job ends (spec §7.4's `/stream/` and the CLI). If
   * not connected it connects to `port` first and disconnects at the end; connected to the same
   * port and idle, it uses that connection and leaves it open. `onStarted` runs once the job runs.
   */
  async stream(
    program: Program,
    port: string,
    baudRate: number = DEFAULT_BAUD_RATE,
    onStarted?: () => void,
    label: JobLabel & { sha256?: string; text?: string } = {},
  ): Promise<JobOutcome> {
    if (program.total === 0) throw new ProgramError('G-code program contained no commands');
    this.#ensureFree();
    const { state, port: connectedTo } = this.host.status();
    const connected = state === 'ready' || state === 'completed' || state === 'cancelled';
    if (connected && connectedTo !== port) {
      throw new MachineStateError(`Machine is connected to ${connectedTo}; disconnect it first`);
    }
    this.#reserved = true;
    let opened = false;
    try {
      if (!connected) {
        await this.host.connect(port, baudRate);
        opened = true;
      }
      // Limits apply to the profile of the connection this job uses; one opened for it has none.
      if (!opened) await this.#checkSoftLimits(program);
      await this.#restoreAbsolute();
      this.#ending = undefined;
      if (opened) {
        this.#profile = undefined;
        this.#feedOverride = undefined;
        this.#lastConnection = { port, baudRate, axisFormat: this.#axisFormat };
      }
      const sha256 =
        label.sha256 ??
        (label.text === undefined
          ? digestOfCommands(program)
          : createHash('sha256').update(label.text, 'utf8').digest('hex'));
      const job = this.#startFollowed(program, sha256, label.name, label.text);
      this.#record(job.done, {
        program,
        sha256,
        name: label.name,
        dryRun: false,
      });
      // A connection opened for this job alone closes after it: nothing to read then.
      if (!opened) this.#jobStarted(job.done);
      onStarted?.();
      return await job.done;
    } finally {
      const after = this.host.state;
      if (opened && (after === 'completed' || after === 'cancelled' || after === 'ready')) {
        await this.host.disconnect().catch(() => {});
      }
      this.#reserved = false;
    }
  }

  /** Shutting down: a running job is cancelled at the next line boundary, then the port closes. */
  close(): Promise<void> {
    this.#ending ??= 'shut down';
    return this.host.close();
  }

  #ensureFree() {
    const state = this.host.state;
    if (this.#reserved || state === 'streaming' || state === 'paused')
      throw new MachineStateError(BUSY_MESSAGE);
    if (this.#manualActions > 0) throw new MachineStateError(MANUAL_IN_PROGRESS);
  }

  /** Manual control waits for no job: it is refused with the reason while one holds the machine. */
  #refuseDuringJob() {
    const state = this.host.state;
    if (state === 'paused')
      throw new MachineStateError('Manual control is refused while a job is paused; cancel the job first');
    if (this.#reserved || state === 'streaming')
      throw new MachineStateError('Manual control is refused while a job is running');
  }

  /** Runs an operator action after those before it; refused if a job took the machine meanwhile. */
  #manual<T>(work: () => Promise<T>): Promise<T> {
    this.#manualActions++;
    const run = this.#manualQueue.then(() => {
      this.#refuseDuringJob();
      return work();
    });
    this.#manualQueue = run.then(
      () => {},
      () => {},
    );
    return run.finally(() => {
      this.#manualActions--;
    });
  }

  /** Sends `commands` in order, then reads the position (strictly: an unreadable answer is a 502). */
  #manualAction(commands: string[], { strict = false } = {}): Promise<ManualResponse> {
    this.#refuseDuringJob();
    return this.#manual(() => this.#manualSteps(commands, { strict }));
  }

  /** The body of a manual action, run in its turn. */
  async #manualSteps(commands: string[], { strict = false } = {}): Promise<ManualResponse> {
    const sent: string[] = [];
    const responses: string[] = [];
    for (const command of this.#relativeMode ? ['G90', ...commands] : commands) {
      sent.push(command);
      responses.push(...(await this.#sendTracked(command)));
    }
    sent.push(POSITION_COMMAND);
    const answer = await this.host.send(POSITION_COMMAND);
    responses.push(...answer);
    const position = parsePosition(answer, this.#axisFormat);
    this.#notePosition(position);
    if (strict && !position) throw new MachineError(this.#unreadable(answer));
    return { commands: sent, responses, status: this.status() };
  }

  /**
   * Under a profile with soft limits: refused (409) naming the first line that would break them.
   * Checked in slices with the event loop free between them: the axes may still be moving from
   * the last jog, and an e-stop must not wait for a long program to be checked.
   */
  async #checkSoftLimits(program: Program) {
    const profile = this.#profile;
    if (!profile || !isConnected(this.host.state)) return;
    const check = softLimitCheck(program, profile, this.host.status().position);
    for (let step = check.next(); ; step = check.next()) {
      if (step.done) {
        if (step.value) throw new SoftLimitError(step.value.message);
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Starts the host's job with its program known first: the status sent with the `streaming` state
   * (synchronously, as the job starts) already names it. A start refused keeps the last job's.
   */
  #startFollowed(program: Program, sha256: string, name: string | undefined, text: string | undefined) {
    const previous = this.#job;
    const kept = text !== undefined && text.length <= KEPT_PROGRAM_CHARS ? text : undefined;
    this.#job = { program: { name: name ?? null, sha256, total: program.total }, text: kept };
    let started: RunningJob;
    try {
      started = this.host.startJob(program);
    } catch (error) {
      this.#job = previous;
      throw error;
    }
    if (kept !== undefined) void this.#readPlaces(program, kept);
    return started;
  }

  /**
   * Reads the running job's layer and circuit starts once, in slices with the event loop free
   * between them (an e-stop must not wait for a long program to be read), and hands them to the
   * host, whose progress then names the place. A program without them (not planned by Towpath)
   * simply has no place.
   */
  async #readPlaces(program: Program, text: string) {
    const reading = placeSlices(text);
    for (let step = reading.next(); ; step = reading.next()) {
      if (step.done) {
        if (step.value.length > 0) this.host.setJobPlaces(program, step.value);
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Writes the job to the history as it starts, while it runs and as it ends. */
  #record(
    done: Promise<JobOutcome>,
    job: {
      program: Program;
      sha256: string;
      name: string | undefined;
      dryRun: boolean;
      continues?: number | undefined;
    },
  ) {
    if (!this.#history) return;
    const status = this.host.status();
    const profile = this.#profile && isConnected(status.state) ? this.#profile : undefined;
    recordJob(this.#history, {
      start: {
        program: job.name ?? null,
        sha256: job.sha256,
        dryRun: job.dryRun,
        profileId: profile?.id ?? null,
        profile: profile?.name ?? null,
        port: job.dryRun ? (status.port ?? profile?.port ?? null) : status.port,
        total: job.program.total,
        queueDepth: profile?.queueDepth ?? DEFAULT_QUEUE_DEPTH,
        continues: job.continues ?? null,
      },
      done,
      subscribe: (listener) => this.host.subscribe(listener),
      ending: () => this.#ending,
      logger: this.#logger,
    });
  }

  /** Sends one line, following whether it leaves the controller in relative mode. */
  async #sendTracked(command: string): Promise<string[]> {
    const mode = /^\s*G9([01])(\D|$)/i.exec(command)?.[1];
    if (mode === '1') this.#relativeMode = true;
    const responses = await this.host.send(command);
    if (mode === '0') this.#relativeMode = false;
    return responses;
  }

  async #restoreAbsolute() {
    if (this.#relativeMode) await this.#sendTracked('G90');
  }

  /** `M114` into the status; undefined (and the position unknown) when its answer has not all axes. */
  async #readPosition(): Promise<AxisPosition | undefined> {
    const position = parsePosition(await this.host.send(POSITION_COMMAND), this.#axisFormat);
    this.#notePosition(position);
    return position;
  }

  #notePosition(position: AxisPosition | undefined) {
    if (position) this.#tracksPosition = true;
    this.host.notePosition(position);
  }

  #unreadable(answer: string[]): string {
    const letters = Object.values(axisLetters(this.#axisFormat)).join(', ');
    return `The controller's answer to M114 has no ${letters} position (axis format ${this.#axisFormat}): ${answer.join(' | ') || 'nothing'}`;
  }

  /** The job moves the machine: the position shown is stale until it ends and is read again. */
  #jobStarted(done: Promise<JobOutcome>) {
    this.host.notePosition(undefined);
    void done.then((outcome) => {
      if (outcome.status === 'error' || !this.#tracksPosition) return;
      const read = this.#manualQueue.then(() => {
        if (isConnected(this.host.state) && this.host.state !== 'streaming' && this.host.state !== 'paused')
          return this.#readPosition();
      });
      this.#manualQueue = read.catch(() => {});
    });
  }

  #log(event: MachineEvent) {
    if (!this.#logger) return;
    if (event.type === 'state')
      this.#logger.info({ state: event.state, message: event.message }, 'machine state');
    else if (event.type === 'error') this.#logger.warn({ message: event.message }, 'machine error');
    else if (event.type === 'complete') this.#logger.info({ ...event }, 'job complete');
  }
}

/** The program of a job source; file problems are ProgramErrors (the request's fault). */
export async function loadProgram(source: JobSource): Promise<Program> {
  return (await loadJob(source)).program;
}

/**
 * The program of a job source, the SHA-256 of its bytes (the job history's fingerprint) and its
 * text (for a watcher's 3D view of the job).
 */
export async function loadJob(
  source: JobSource,
): Promise<{ program: Program; sha256: string; text: string }> {
  if ('gcode' in source)
    return {
      program: prepareProgram(source.gcode),
      sha256: createHash('sha256').update(source.gcode, 'utf8').digest('hex'),
      text: source.gcode,
    };
  const { path } = source;
  const shown = source.shown ?? path;
  if (!isAbsolute(path)) throw new ProgramError(`Path must be absolute: '${shown}'`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ProgramError(`No file found at ${shown}`);
    throw new ProgramError(`Could not read G-code at ${shown}: ${(error as Error).message}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // Latin-1 keeps one character per byte, so a non-ASCII byte in a command is refused by §6.1
  // and one in a comment is harmless.
  const text = bytes.toString(source.encoding ?? 'latin1');
  return { program: prepareProgram(text), sha256, text };
}

/** A console line as a one-line program; a line the host will refuse anyway checks nothing. */
function consoleMove(command: string): Program {
  try {
    return prepareProgram(command);
  } catch {
    return { commands: [], total: 0 };
  }
}

/** A program given as parsed commands only: the digest of its commands, one per line. */
function digestOfCommands(program: Program): string {
  const hash = createHash('sha256');
  for (const { command } of program.commands) hash.update(`${command}\n`);
  return hash.digest('hex');
}
