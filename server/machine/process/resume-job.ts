// The machine door's resume: a new job that takes a stopped one up again from a checkpoint. The
// checkpoints come from the program's own comments (engine/plan/checkpoints.ts); the controller's
// coordinates are taken to be where the program had them after the stopped job's last
// acknowledged command (the controller kept them: a cancel, a pause, an e-stop answered without a
// power cycle). What is streamed is the lead-in and then the program's tail, as an ordinary job.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SimulationError } from '../../../engine/errors.ts';
import {
  isBusy,
  type JobRecord,
  type ResumeJobRequest,
  type ResumeJobResponse,
} from '../../../engine/machine/contract.ts';
import { MachineStateError } from '../../../engine/machine/errors.ts';
import { BUSY_MESSAGE } from '../../../engine/machine/host.ts';
import { ProgramError } from '../../../engine/machine/program.ts';
import {
  DEFAULT_QUEUE_DEPTH,
  resumedProgram,
  resumeLeadIn,
  suggestCheckpoint,
} from '../../../engine/machine/resume.ts';
import type { MachineStatus } from '../../../engine/machine/types.ts';
import {
  checkpointSlices,
  describeCheckpoint,
  type ProgramCheckpoints,
} from '../../../engine/plan/checkpoints.ts';
import type { MachineController } from './controller.ts';
import type { JobHistory } from './job-history.ts';

export interface ResumeMachine {
  status(): MachineStatus;
  /** The connected profile's queue depth, if it has one. */
  queueDepth?: number | undefined;
  /**
   * The last streamed job, from the job history, when it ended without completing: how far it got
   * survives a reconnect there, where the controller's own record of it does not.
   */
  stoppedJob?: Pick<JobRecord, 'id' | 'acknowledged' | 'queueDepth' | 'program' | 'sha256'> | undefined;
  /** Starts the resumed program as a job; resolves once it runs. */
  start(
    gcode: string,
    label: { name?: string | undefined; continues?: number | undefined },
  ): Promise<{ total: number }>;
}

/**
 * Builds the resumed program for `request` (its program already read as `text`, whose bytes have
 * the digest `sha256`) and starts it.
 */
export async function startResumedJob(
  machine: ResumeMachine,
  request: Omit<ResumeJobRequest, 'gcode' | 'path'>,
  text: string,
  sha256: string,
): Promise<ResumeJobResponse> {
  // The history's last stopped job speaks for this program only if it ran these very bytes.
  const stopped = machine.stoppedJob?.sha256 === sha256 ? machine.stoppedJob : undefined;
  const acknowledged = request.acknowledged ?? lastAcknowledged(machine.status()) ?? stopped?.acknowledged;
  if (acknowledged === undefined) {
    throw new ProgramError(
      'No stopped job is known here to resume (the connection was opened again since): give acknowledged, the commands the stopped job acknowledged',
    );
  }
  // Refused before the program is read: reading it takes the event loop in slices, and a job's
  // e-stop must not wait behind a request that could not have started anyway.
  if (isBusy(machine.status().state)) throw new MachineStateError(BUSY_MESSAGE);
  let read: ProgramCheckpoints;
  try {
    read = await inSlices(checkpointSlices(text, { stateAfterCommand: acknowledged }));
  } catch (error) {
    if (error instanceof SimulationError) throw new ProgramError(error.message);
    throw error;
  }
  if (read.at === undefined) {
    throw new ProgramError(
      `The stopped job acknowledged ${acknowledged} commands but this program has ${read.end.command}: is it the program that stopped?`,
    );
  }
  const queueDepth = request.queueDepth ?? machine.queueDepth ?? stopped?.queueDepth ?? DEFAULT_QUEUE_DEPTH;
  const checkpoint =
    request.checkpoint === 'auto'
      ? suggestCheckpoint(read.checkpoints, acknowledged, queueDepth)
      : read.checkpoints[request.checkpoint - 1];
  if (checkpoint === undefined) {
    throw new ProgramError(
      request.checkpoint === 'auto'
        ? `No checkpoint is certainly behind the machine after ${acknowledged} acknowledged commands (queue depth ${queueDepth}); start the program from its beginning`
        : `No checkpoint ${request.checkpoint}: the program has ${read.checkpoints.length}`,
    );
  }
  if (checkpoint.command > acknowledged) {
    throw new ProgramError(
      `Checkpoint ${checkpoint.index} is after the last acknowledged command (${acknowledged}); choose an earlier one`,
    );
  }
  const { at } = read;
  const leadIn = resumeLeadIn(checkpoint, {
    from: { x: at.x, a: at.a, b: at.b, rezero: at.rezero },
    towAttached: request.towAttached,
    pause: request.pause ?? !request.towAttached,
    // The tail names the axes as the program does; the lead-in must name them the same way.
    axisFormat: read.axisFormat,
  });
  const continues = request.continues ?? stopped?.id;
  const { total } = await machine.start(resumedProgram(text, read.header, checkpoint, leadIn), {
    name: stopped?.program ?? undefined,
    continues,
  });
  return {
    total,
    checkpoint: {
      index: checkpoint.index,
      line: checkpoint.line,
      command: checkpoint.command,
      description: describeCheckpoint(checkpoint),
    },
    leadIn,
    continues: continues ?? null,
    status: machine.status(),
  };
}

/** The stopped job's acknowledged commands, while the connection it ran on is still open. */
function lastAcknowledged(status: MachineStatus): number | undefined {
  if (status.job === null || status.state === 'completed') return undefined;
  return status.job.acknowledged;
}

/**
 * The resume route's work once its body is checked: reads the program (the spooled body, UTF-8,
 * or a checked path, Latin-1 as any job file) and starts the resumed job on `machine`.
 */
export async function resumeJob(
  machine: MachineController,
  request: ResumeJobRequest,
  source: { path: string; encoding: BufferEncoding; shown: string },
  history?: Pick<JobHistory, 'list'>,
): Promise<ResumeJobResponse> {
  let bytes: Buffer;
  try {
    bytes = await readFile(source.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ProgramError(
      code === 'ENOENT' ? `No file found at ${source.shown}` : `Could not read G-code at ${source.shown}`,
    );
  }
  const { gcode: _gcode, path: _path, ...resume } = request;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return startResumedJob(
    {
      status: () => machine.status(),
      queueDepth: machine.profile?.queueDepth,
      stoppedJob: history ? lastStoppedJob(history) : undefined,
      start: (gcode, label) => machine.startJob({ gcode }, label),
    },
    resume,
    bytes.toString(source.encoding),
    sha256,
  );
}

/** The newest streamed job in the history, if it ended without completing. */
function lastStoppedJob(history: Pick<JobHistory, 'list'>): JobRecord | undefined {
  const last = history.list({ limit: 50 }).find((job) => !job.dryRun);
  return last && last.outcome !== 'completed' && last.outcome !== 'running' ? last : undefined;
}

/** Runs a sliced computation, letting the event loop (the e-stop, the serial port) in between slices. */
async function inSlices<T>(steps: Generator<void, T, undefined>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
