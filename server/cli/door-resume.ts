// `towpath stream --resume-from` with a workstation running: the resumed job goes through the
// machine door's resume route, so the machine process records it in the job history as the job it
// continues. The route answers once the job runs and needs the controller connected; the CLI's
// streaming connects first and waits for the end, so this connects when needed (and disconnects a
// connection it opened, as a plain job does), starts the job, then follows it from the machine's
// events to its outcome.
import { MachineError } from '../../engine/errors.ts';
import type { ResumeJobRequest, ResumeJobResponse } from '../../engine/machine/contract.ts';
import { MachineStateError } from '../../engine/machine/errors.ts';
import type { JobOutcome, MachineEvent, MachineState, MachineStatus } from '../../engine/machine/types.ts';
import type { ResumeOptions } from './resume-from.ts';

/** What the resume needs of the workstation's machine process (its MachineLink). */
export interface ResumeDoor {
  status(): MachineStatus;
  subscribe(listener: (event: MachineEvent) => void): () => void;
  refresh(): Promise<MachineStatus>;
  connect(port: string, baudRate?: number): Promise<MachineStatus>;
  disconnect(): Promise<MachineStatus>;
  resumeJob(request: ResumeJobRequest): Promise<ResumeJobResponse>;
}

/** States in which a connection is open and no job holds it. */
const CONNECTED: readonly MachineState[] = ['ready', 'completed', 'cancelled'];
const ENDED: readonly MachineState[] = ['completed', 'cancelled', 'error'];

/**
 * Starts the resumed job `request` on `port` through the door and resolves with its outcome once it
 * ends; `onStarted` gets the door's answer (the checkpoint it resumed from) as soon as the job runs.
 * Like a plain job it never rejects for a job that ran: the outcome says how it ended.
 */
export async function resumeThroughDoor(
  door: ResumeDoor,
  request: ResumeJobRequest,
  port: string,
  baudRate: number,
  onStarted: (started: ResumeJobResponse) => void,
): Promise<JobOutcome> {
  const before = door.status();
  const connected = CONNECTED.includes(before.state);
  if (connected && before.port !== port) {
    throw new MachineStateError(`Machine is connected to ${before.port}; disconnect it first`);
  }
  // Subscribed before anything starts: a short job may end before the door's answer arrives.
  let started = false;
  let ending: { state: MachineState; message?: string | undefined; elapsed_s?: number } | undefined;
  let ended!: () => void;
  const end = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const unsubscribe = door.subscribe((event) => {
    if (event.type === 'complete') ending = { state: 'completed', elapsed_s: event.elapsed_s };
    if (event.type !== 'state') return;
    // The job's own states: those of a connect before it (or of the stopped job) are not its end.
    if (event.state === 'streaming') started = true;
    else if (started && ENDED.includes(event.state)) {
      ending = { ...ending, state: event.state, message: event.message };
      ended();
    }
  });
  let opened = false;
  try {
    if (!connected) {
      await door.connect(port, baudRate);
      opened = true;
    }
    const answer = await door.resumeJob(request);
    onStarted(answer);
    // The events come in order whether they overtake the answer or not: the end is among them.
    await end;
    const status = await door.refresh().catch(() => door.status());
    return outcomeOf(ending as NonNullable<typeof ending>, status, answer.total);
  } finally {
    unsubscribe();
    if (opened && CONNECTED.includes(door.status().state)) await door.disconnect().catch(() => {});
  }
}

function outcomeOf(
  ending: { state: MachineState; message?: string | undefined; elapsed_s?: number },
  status: MachineStatus,
  total: number,
): JobOutcome {
  const job = status.job;
  const acknowledged = job?.acknowledged ?? 0;
  return {
    status: ending.state === 'completed' ? 'completed' : ending.state === 'cancelled' ? 'cancelled' : 'error',
    sent: job?.sent ?? acknowledged,
    acknowledged,
    total: job?.total ?? total,
    elapsed_s: ending.elapsed_s ?? job?.elapsed_s ?? 0,
    ...(ending.state === 'error' ? { error: new MachineError(ending.message ?? 'Streaming failed') } : {}),
  };
}

/** The door's request for the CLI's resume options; `gcode` is the program as the plain path sends it. */
export function resumeRequestOf(options: ResumeOptions, gcode: string): ResumeJobRequest {
  return {
    gcode,
    checkpoint: options.resumeFrom === 'auto' ? 'auto' : Number(options.resumeFrom),
    towAttached: options.towAttached,
    // Left out when not given: the door then takes the stopped job's count and the profile's depth.
    ...(options.acknowledged === undefined ? {} : { acknowledged: options.acknowledged }),
    ...(options.queueDepth === undefined ? {} : { queueDepth: options.queueDepth }),
  };
}

/** The operator's line saying where the job resumes from. */
export function resumeNote(checkpoint: { index: number; line: number; description: string }): string {
  return `Resuming from checkpoint ${checkpoint.index}: ${checkpoint.description} (line ${checkpoint.line})`;
}
