// `towpath stream --resume-from <checkpoint|auto>`: the program to stream when a winding is taken
// up again — the lead-in to the checkpoint, then the program's tail from the checkpoint's line.
// Where the machine stands is where the program had it after the last acknowledged command
// (`--acknowledged`, else the last job of the workstation's machine process): the controller is
// assumed to have kept its coordinates (docs/operating.md, "Resume, step by step").

import {
  type JobList,
  MACHINE_ROUTES,
  type MachineProfile,
  profilePath,
} from '../../engine/machine/contract.ts';
import { type Program, prepareProgram } from '../../engine/machine/program.ts';
import {
  DEFAULT_QUEUE_DEPTH,
  resumedProgram,
  resumeLeadIn,
  suggestCheckpoint,
} from '../../engine/machine/resume.ts';
import type { MachineStatus } from '../../engine/machine/types.ts';
import { describeCheckpoint } from '../../engine/plan/checkpoints.ts';
import { dataDirOf } from '../config/data-dir-default.ts';
import { readMachineFile } from '../machine/process/machine-file.ts';
import { processExists } from '../process-exists.ts';
import { checkpointByNumber, loadCheckpoints } from './checkpoints.ts';
import { resumeNote } from './door-resume.ts';
import { type CliIo, UsageError } from './io.ts';

export interface ResumeOptions {
  file: string;
  /** A checkpoint number, or `auto`. */
  resumeFrom: string;
  towAttached: boolean;
  /** Commands the stopped job had acknowledged; asked of the machine process when absent. */
  acknowledged: number | undefined;
  /** The controller's queue depth when given; the default (or the machine profile's) otherwise. */
  queueDepth: number | undefined;
}

export const RESUME_OPTIONS = {
  'resume-from': { type: 'string' },
  'tow-attached': { type: 'boolean' },
  acknowledged: { type: 'string' },
  'queue-depth': { type: 'string' },
} as const;

/** The resume options of `towpath stream`, or undefined without --resume-from. */
export function parseResumeOptions(
  file: string,
  values: { 'resume-from'?: string; 'tow-attached'?: boolean; acknowledged?: string; 'queue-depth'?: string },
): ResumeOptions | undefined {
  const resumeFrom = values['resume-from']?.trim();
  if (resumeFrom === undefined) {
    if (values['tow-attached'] || values.acknowledged !== undefined || values['queue-depth'] !== undefined)
      throw new UsageError('--tow-attached, --acknowledged and --queue-depth go with --resume-from');
    return undefined;
  }
  if (resumeFrom !== 'auto' && !/^\d+$/.test(resumeFrom))
    throw new UsageError(`--resume-from must be auto or a checkpoint number (got '${resumeFrom}')`);
  return {
    file,
    resumeFrom,
    towAttached: values['tow-attached'] ?? false,
    acknowledged: count('--acknowledged', values.acknowledged),
    queueDepth: count('--queue-depth', values['queue-depth']),
  };
}

function count(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new UsageError(`${name} must be a whole number of commands (got '${text}')`);
  return Number(text);
}

/** The resumed program, a line for the operator saying what it does, and the whole program's text. */
export async function resumeProgram(
  options: ResumeOptions,
  io: CliIo,
): Promise<{ program: Program; note: string; gcode: string }> {
  // Asked of the workstation only for what the options leave out.
  const asked =
    options.acknowledged === undefined || options.queueDepth === undefined ? await askWorkstation(io) : {};
  const acknowledged = options.acknowledged ?? asked.acknowledged;
  // Counted back as the machine door will count: the checkpoint chosen, or the refusal, is the same here.
  const queueDepth = options.queueDepth ?? asked.queueDepth ?? DEFAULT_QUEUE_DEPTH;
  if (acknowledged === undefined) {
    throw new UsageError(
      'say where the stopped job ended with --acknowledged <n> (the commands it acknowledged; no workstation is running to ask)',
    );
  }
  const read = await loadCheckpoints(options.file, 'xab', acknowledged);
  if (acknowledged > read.end.command) {
    throw new UsageError(
      `--acknowledged ${acknowledged} is more than the program's ${read.end.command} commands; is this the program that stopped?`,
    );
  }
  const checkpoint =
    options.resumeFrom === 'auto'
      ? suggestCheckpoint(read.checkpoints, acknowledged, queueDepth)
      : checkpointByNumber(read.checkpoints, options.resumeFrom);
  if (checkpoint === undefined) {
    throw new UsageError(
      `no checkpoint is certainly behind the machine after ${acknowledged} acknowledged commands (queue depth ${queueDepth}); stream the program from its start`,
    );
  }
  if (checkpoint.command > acknowledged) {
    throw new UsageError(
      `checkpoint ${checkpoint.index} (command ${checkpoint.command}) is after the last acknowledged command ${acknowledged}; choose an earlier one`,
    );
  }
  // Where the controller's coordinates are: the program's state after the last acknowledged command.
  const at = read.at ?? read.end;
  const leadIn = resumeLeadIn(checkpoint, {
    from: { x: at.x, a: at.a, b: at.b, rezero: at.rezero },
    towAttached: options.towAttached,
    pause: !options.towAttached,
    axisFormat: read.axisFormat,
  });
  const text = resumedProgram(read.gcode, read.header, checkpoint, leadIn);
  return {
    program: prepareProgram(text),
    gcode: read.gcode,
    note: resumeNote({ ...checkpoint, description: describeCheckpoint(checkpoint) }),
  };
}

/** What the workstation's machine process knows of the stopped job; empty when none runs. */
interface WorkstationView {
  /** The stopped job's acknowledged commands, when the last job ended without completing. */
  acknowledged?: number | undefined;
  /** The queue depth the machine door counts back by when the request names none. */
  queueDepth?: number | undefined;
}

/**
 * The workstation's view of a resume, asked of its machine process: the acknowledged commands of
 * its last streamed job when that ended without completing (its status while the connection it ran
 * on is open, else its job history), and the queue depth its door will use — the connected
 * profile's, else the one the stopped job ran with (its profile's then).
 */
async function askWorkstation(io: CliIo): Promise<WorkstationView> {
  const record = await readMachineFile(dataDirOf(io.env));
  if (!record || !processExists(record.pid)) return {};
  const ask = async <T>(path: string): Promise<T | undefined> => {
    const response = await fetch(new URL(path, record.url));
    return response.ok ? ((await response.json()) as T) : undefined;
  };
  const status = await ask<MachineStatus>(MACHINE_ROUTES.status);
  const profile = status?.profile ? await ask<MachineProfile>(profilePath(status.profile.id)) : undefined;
  const connectedDepth = profile?.queueDepth;
  if (status?.state === 'streaming' || status?.state === 'paused') return { queueDepth: connectedDepth };
  const last = (await ask<JobList>(`${MACHINE_ROUTES.jobs}?limit=50`))?.jobs.find((job) => !job.dryRun);
  const stopped = last && last.outcome !== 'completed' && last.outcome !== 'running' ? last : undefined;
  const open = status?.job && status.state !== 'completed' ? status.job : undefined;
  return {
    acknowledged: open?.acknowledged ?? stopped?.acknowledged,
    queueDepth: connectedDepth ?? stopped?.queueDepth,
  };
}
