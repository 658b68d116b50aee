// `towpath stream`: a G-code program to the machine. With a workstation running on the data dir it
// goes through that workstation's machine process (the one owner of the port: a job there means
// 409 here); otherwise through a machine controller in this process. Ctrl-C pauses and asks whether
// to resume, cancel or e-stop; the program is never restarted from line 1, and a second Ctrl-C or a
// SIGTERM never waits on a controller that stopped answering.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { pino } from 'pino';
import { MachineError } from '../../engine/errors.ts';
import type { ResumeJobRequest, ResumeJobResponse } from '../../engine/machine/contract.ts';
import { MachineStateError } from '../../engine/machine/errors.ts';
import { DEFAULT_BAUD_RATE } from '../../engine/machine/host.ts';
import { type Program, ProgramError } from '../../engine/machine/program.ts';
import type { JobOutcome, MachineEvent, MachineStatus } from '../../engine/machine/types.ts';
import { dataDirOf } from '../config/data-dir-default.ts';
import { HttpError } from '../http/http-error.ts';
import { MachineLink, MachineUnavailableError } from '../machine/link.ts';
import { loadJob, MachineController, type MachineControllerOptions } from '../machine/process/controller.ts';
import { JobHistory } from '../machine/process/job-history.ts';
import { type MachineDatabase, openMachineDatabase } from '../machine/process/machine-db.ts';
import { readMachineFile } from '../machine/process/machine-file.ts';
import { processExists } from '../process-exists.ts';
import { resumeNote, resumeRequestOf, resumeThroughDoor } from './door-resume.ts';
import {
  type CliIo,
  type Command,
  FileProblem,
  onePositional,
  parseCommandArgs,
  progressBar,
  UsageError,
  writeJson,
} from './io.ts';
import { keyPrompt, type Prompt } from './key-prompt.ts';
import { parseResumeOptions, RESUME_OPTIONS, type ResumeOptions, resumeProgram } from './resume-from.ts';

/** CliIo plus what only streaming needs; both extras are for tests and default to the process. */
export interface StreamIo extends CliIo {
  /** Asks the operator a question; null when nobody can answer (no terminal, end of input). */
  prompt?: Prompt | null;
  machine?: Omit<MachineControllerOptions, 'logger'>;
}

export interface StreamSummary {
  status: JobOutcome['status'];
  commands: number;
  total: number;
  baudRate: number;
  dryRun: boolean;
  detail?: string;
}

export const stream: Command = {
  async run(args, baseIo) {
    const io = baseIo as StreamIo;
    const options = parseOptions(args);
    const resumed = options.resume ? await resumeProgram(options.resume, io) : undefined;
    // The file's text goes with a whole program, comments and all, so watchers of the job (the
    // panel's layer and circuit) read the program as written; a resumed one is commands only.
    const read = resumed ? undefined : await readProgram(options.file);
    const program = resumed?.program ?? (read as { program: Program }).program;
    // The machine door may resume from another checkpoint than this one (its profile's queue depth).
    let total = program.total;
    const summary = (status: JobOutcome['status'], commands: number): StreamSummary => ({
      status,
      commands,
      total,
      baudRate: options.baudRate,
      dryRun: options.dryRun,
    });

    if (options.dryRun) {
      if (resumed) io.stderr(`${resumed.note}\n`);
      if (options.json) writeJson(io, summary('completed', program.total));
      else io.stdout(`${count(program.total)} commands would be streamed (dry run; no port opened)\n`);
      return 0;
    }

    const timings = {
      ...io.machine?.timings,
      ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    };
    const machine = await openMachine(io, timings);
    // With a workstation running a resume goes through its door, which says where it resumed from.
    const viaDoor = resumed && options.resume && machine.resumeJob;
    if (resumed && !viaDoor) io.stderr(`${resumed.note}\n`);
    const progress = progressBar(io, 'Streaming', 'lines', program.total);
    const unsubscribe = machine.subscribe((event) => {
      if (event.type === 'progress') progress.update(event.acknowledged, event.total);
      else if (event.type === 'state' && event.state === 'ready' && event.message)
        io.stderr(`warning: ${event.message}\n`);
      else if (event.type === 'action') io.stderr(`controller: //action:${event.text}\n`);
    });
    let connectInterrupted = false;
    const jobSignals = stopOnSignal(machine, io, progress);
    const stopSignals = io.onStopSignal((signal) => {
      // Nothing has been sent while connecting (the handshake can take seconds): just stop.
      if (machine.status().state === 'connecting') {
        connectInterrupted = true;
        void machine.abortConnect().catch(() => {});
        return;
      }
      jobSignals.onSignal(signal);
    });

    let outcome: JobOutcome;
    try {
      outcome = viaDoor
        ? await viaDoor(
            resumeRequestOf(options.resume as ResumeOptions, await doorText(options.file, resumed.gcode)),
            options.port as string,
            options.baudRate,
            (started) => {
              total = started.total;
              io.stderr(`${resumeNote(started.checkpoint)}\n`);
            },
          )
        : await machine.stream(
            program,
            options.port as string,
            options.baudRate,
            basename(options.file),
            read?.text,
          );
    } catch (error) {
      if (connectInterrupted && error instanceof MachineError) {
        if (options.json) writeJson(io, summary('cancelled', 0));
        else io.stderr('Interrupted while connecting; nothing was sent.\n');
        return 130;
      }
      if (options.json && (error instanceof MachineError || error instanceof MachineStateError)) {
        writeJson(io, { ...summary('error', 0), detail: error.message });
      }
      throw error;
    } finally {
      stopSignals();
      jobSignals.finish();
      unsubscribe();
      progress.finish();
      await machine.close();
    }

    const aborted = jobSignals.aborted();
    if (outcome.status === 'error' && aborted !== undefined && outcome.error?.message === aborted) {
      io.stderr(`${aborted}\n`);
      if (options.json) writeJson(io, { ...summary('cancelled', outcome.acknowledged), detail: aborted });
      return 130;
    }
    if (outcome.status === 'error') {
      const error = outcome.error ?? new MachineError('Streaming failed');
      if (options.json) writeJson(io, { ...summary('error', outcome.acknowledged), detail: error.message });
      else io.stderr(`Stopped after ${count(outcome.acknowledged)} of ${count(outcome.total)} commands.\n`);
      throw error;
    }
    if (options.json) writeJson(io, summary(outcome.status, outcome.acknowledged));
    else if (outcome.status === 'completed') {
      io.stdout(
        `Streamed ${count(outcome.total)} commands to ${options.port} in ${outcome.elapsed_s.toFixed(1)} s\n`,
      );
    } else {
      io.stdout(`Cancelled after ${count(outcome.acknowledged)} of ${count(outcome.total)} commands\n`);
    }
    // 130 is what a shell reports for a run stopped with Ctrl-C; the job did not finish.
    return outcome.status === 'completed' ? 0 : 130;
  },
};

interface StreamOptions {
  file: string;
  port: string | undefined;
  baudRate: number;
  idleTimeoutMs: number | undefined;
  dryRun: boolean;
  json: boolean;
  resume: ResumeOptions | undefined;
}

function parseOptions(args: string[]): StreamOptions {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  const file = onePositional(positionals, 'the G-code file to stream');
  const baudRate = values.baud === undefined ? DEFAULT_BAUD_RATE : Number(values.baud);
  if (!/^\d+$/.test(values.baud ?? '1') || !Number.isSafeInteger(baudRate) || baudRate < 1) {
    throw new UsageError(`--baud must be a positive integer (got '${values.baud}')`);
  }
  let idleTimeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!(seconds > 0) || !Number.isFinite(seconds)) {
      throw new UsageError(`--timeout must be a positive number of seconds (got '${values.timeout}')`);
    }
    idleTimeoutMs = seconds * 1000;
  }
  const dryRun = values['dry-run'] ?? false;
  const port = values.port?.trim() || undefined;
  if (!dryRun && port === undefined) throw new UsageError('--port is required unless --dry-run is given');
  return {
    file,
    port,
    baudRate,
    idleTimeoutMs,
    dryRun,
    json: values.json ?? false,
    resume: parseResumeOptions(file, values),
  };
}

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  baud: { type: 'string', short: 'b' },
  timeout: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  ...RESUME_OPTIONS,
} as const;

/**
 * The program the door resumes: a G-code file's text as UTF-8, as the plain path streams it, so its
 * fingerprint is that of the stopped job and the door finds the job it continues; a .wind's plan.
 */
async function doorText(file: string, planned: string): Promise<string> {
  if (/\.wind$/i.test(file)) return planned;
  try {
    return await readFile(resolve(file), 'utf8');
  } catch (error) {
    throw new FileProblem(`Could not read G-code at ${file} (${(error as Error).message})`);
  }
}

async function readProgram(file: string): Promise<{ program: Program; text: string }> {
  try {
    // UTF-8, as the machine door decodes a job body: the text then reaches it byte for byte.
    return await loadJob({ path: resolve(file), encoding: 'utf8' });
  } catch (error) {
    // Unreadable files are file problems (exit 2); a refused line stays a ProgramError (exit 1).
    if (error instanceof ProgramError && /^(No file found at|Could not read G-code at)/.test(error.message)) {
      throw new FileProblem(error.message);
    }
    throw error;
  }
}

/**
 * Signals during a job. On a terminal the first Ctrl-C pauses and asks at once, even while a line
 * is in flight (its e-stop acts at once; resume and cancel at the line boundary); without one it
 * asks for a cancel at the next boundary. A second Ctrl-C, or any SIGTERM, while a cancel is
 * pending or a line is in flight aborts: the controller may never answer that line.
 */
/** What streaming needs of a machine: the controller here, or the workstation's machine process. */
interface StreamMachine {
  status(): MachineStatus;
  subscribe(listener: (event: MachineEvent) => void): () => void;
  /** `name` is the program's file name, for the job history. */
  stream(program: Program, port: string, baudRate: number, name: string, text?: string): Promise<JobOutcome>;
  /**
   * The workstation's machine process only: a resumed job through the door's resume route, so the
   * job history names the job it continues; `onStarted` gets the door's answer once it runs.
   */
  resumeJob?(
    request: ResumeJobRequest,
    port: string,
    baudRate: number,
    onStarted: (started: ResumeJobResponse) => void,
  ): Promise<JobOutcome>;
  pause(): void;
  resume(): void;
  cancel(): void;
  /** Ends the job without waiting for the line in flight; the message it ends with when known here. */
  abort(): string | undefined;
  emergencyStop(): void;
  /** Ctrl-C while connecting: nothing has been sent, so the connection attempt just ends. */
  abortConnect(): Promise<unknown>;
  close(): Promise<void>;
}

/** The running workstation's machine process if there is one on the data dir, else a controller here. */
async function openMachine(
  io: StreamIo,
  timings: MachineControllerOptions['timings'],
): Promise<StreamMachine> {
  const dataDir = dataDirOf(io.env);
  const record = await readMachineFile(dataDir);
  if (record && processExists(record.pid)) {
    const link = new MachineLink({
      dataDir,
      logger: pino({ level: 'silent' }),
      settings: { port: 0, remoteControl: false, allowedRoots: [], logLevel: 'silent' },
    });
    await link.start();
    // Control calls answer asynchronously; a refusal (the job ended meanwhile) is nothing to report.
    const quietly = (call: () => Promise<unknown>) => () => void call().catch(() => {});
    return {
      status: () => link.status(),
      subscribe: (listener) => link.subscribe(listener),
      stream: (program, port, baudRate, name, text) => link.stream(text ?? program, port, baudRate, name),
      resumeJob: (request, port, baudRate, onStarted) =>
        resumeThroughDoor(link, request, port, baudRate, onStarted),
      pause: quietly(() => link.pause()),
      resume: quietly(() => link.resume()),
      cancel: quietly(() => link.cancel()),
      // The machine door aborts on a second cancel; the job's outcome then carries the message.
      abort: () => {
        void link.cancel().catch(() => {});
        return undefined;
      },
      emergencyStop: quietly(() => link.emergencyStop()),
      abortConnect: () => link.cancel(),
      close: () => link.stop(),
    };
  }
  // No machine process: the job is recorded in the data dir's job history from here, if it has one.
  const database = openHistory(dataDir);
  const history = database ? { history: new JobHistory(database) } : {};
  const controller = new MachineController({ ...io.machine, timings, ...history });
  return {
    status: () => controller.status(),
    subscribe: (listener) => controller.subscribe(listener),
    stream: (program, port, baudRate, name, text) =>
      controller.stream(program, port, baudRate, undefined, { name, text }),
    pause: () => controller.pause(),
    resume: () => controller.resume(),
    cancel: () => controller.cancel(),
    abort: () => controller.abort(),
    emergencyStop: () => controller.emergencyStop(),
    abortConnect: () => controller.host.disconnect(),
    close: async () => {
      await controller.close();
      // The job's end is written once its outcome settles, a turn after close returns.
      await new Promise((resolve) => setImmediate(resolve));
      database?.close();
    },
  };
}

/** The data dir's machine database, when the data dir exists; streaming goes on without it otherwise. */
function openHistory(dataDir: string): MachineDatabase | undefined {
  if (!existsSync(dataDir)) return undefined;
  try {
    return openMachineDatabase(dataDir);
  } catch {
    return undefined;
  }
}

function stopOnSignal(machine: StreamMachine, io: StreamIo, progress: { finish(): void }) {
  const ask = io.prompt === undefined ? terminalPrompt() : io.prompt;
  const question = new AbortController();
  let asking = false;
  let cancelPending = false;
  let interrupts = 0;
  let aborted: string | undefined;

  const cancel = () => {
    cancelPending = true;
    io.stderr('Cancelling after the line in flight… (Ctrl-C again to abort at once)\n');
    machine.cancel();
  };
  const abort = () => {
    aborted = machine.abort() ?? aborted;
  };
  const inFlight = () => {
    const job = machine.status().job;
    return job !== null && job.sent > job.acknowledged;
  };

  const onSignal = (signal: string) => {
    const state = machine.status().state;
    if (state !== 'streaming' && state !== 'paused') return;
    if (signal === 'SIGINT') interrupts++;
    const again = signal !== 'SIGINT' || interrupts > 1;
    if (again && (cancelPending || inFlight())) return abort();
    if (again || asking || !ask) return cancel();
    asking = true;
    machine.pause();
    progress.finish();
    void (async () => {
      try {
        for (;;) {
          const job = machine.status().job;
          const where = inFlight()
            ? `Pausing after line ${job?.sent ?? 0} of ${job?.total ?? 0}, the line in flight`
            : `Paused after line ${job?.acknowledged ?? 0} of ${job?.total ?? 0}`;
          const answer = await ask(
            `\n${where} (motion already queued in the controller still runs).\n` +
              'Type r to resume, c to cancel, e for an emergency stop: ',
            question.signal,
            () => onSignal('SIGINT'),
          );
          if (machine.status().state !== 'paused' || cancelPending) return;
          const choice = answer?.trim().toLowerCase();
          if (choice === 'e' || choice === 'estop') return void machine.emergencyStop();
          if (choice === 'r' || choice === 'resume') return machine.resume();
          if (choice === 'c' || choice === 'cancel' || answer === null) return cancel();
        }
      } finally {
        asking = false;
      }
    })();
  };
  return {
    onSignal,
    /** The abort message if a signal aborted the job. */
    aborted: () => aborted,
    /** The job is over: a question still open is withdrawn. */
    finish: () => question.abort(),
  };
}

/** The pause question on the terminal, answered by one key; none when nobody can answer. */
function terminalPrompt(): Prompt | null {
  if (!process.stdin.isTTY) return null;
  return keyPrompt({ input: process.stdin, output: process.stderr, keys: PAUSE_KEYS });
}

/** The pause question's answers: resume, cancel, emergency stop. */
const PAUSE_KEYS = ['r', 'c', 'e'] as const;

function count(n: number): string {
  return n.toLocaleString('en');
}

/** Exit code for a machine failure: 3 when the controller or the port failed, 1 for a refused program. */
export function machineExitCode(error: unknown): number | undefined {
  // No machine process attached (a new one starting after a crash) is a machine problem too.
  if (
    error instanceof MachineError ||
    error instanceof MachineStateError ||
    error instanceof MachineUnavailableError
  )
    return 3;
  if (error instanceof ProgramError) return 1;
  // The machine door refused the request itself (a resume it cannot place): its reason, exit 1.
  if (error instanceof HttpError && error.status === 400) return 1;
  return undefined;
}
