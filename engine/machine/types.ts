// States, status and events of the machine controller (spec/winding.md §6.5). Field names are the
// wire names the renderer and the CLI read.
import type { PlaceMark } from '../plan/checkpoints.ts';
import type { AxisFormat } from '../plan/types.ts';

export type MachineState =
  | 'idle'
  | 'connecting'
  | 'ready'
  | 'streaming'
  | 'paused'
  | 'completed'
  | 'cancelled'
  | 'error';

export interface JobProgress {
  sent: number;
  acknowledged: number;
  total: number;
  /** 1-based index of the last acknowledged command (0 before the first). */
  line: number;
  /** Its line number in the program text. */
  sourceLine: number;
  command: string;
  /** Streaming time so far; time spent paused is not counted. */
  elapsed_s: number;
  remaining_s: number;
  /**
   * Where in the winding the last acknowledged command is, from the program's layer and circuit
   * comments; absent until the machine process has read them, and for a program without them.
   */
  place?: JobPlace;
}

/**
 * A layer (1-based, of `layers`, its wind type) and, past a circuit start, the circuit (and on a
 * helical layer the pattern) in it; circuit and pattern are null before the layer's first circuit.
 */
export type JobPlace = PlaceMark['place'];

/** A job place and the program text line it starts at (1-based). */
export type JobPlaceMark = PlaceMark;

export interface ControllerInfo {
  /** The FIRMWARE_NAME value, or null when the controller did not answer M115. */
  firmware: string | null;
  capabilities: Record<string, boolean>;
  advancedOk: boolean;
}

/** The winder's position (mm for X, degrees for A and B), as the controller's `M114` reported it. */
export interface AxisPosition {
  x: number;
  a: number;
  b: number;
}

export interface MachineStatus {
  state: MachineState;
  message?: string;
  port: string | null;
  baudRate: number | null;
  controller: ControllerInfo | null;
  job: JobProgress | null;
  /** While connected: which controller letters the winder's A and B axes are (xab: A, B; xyz: Y, Z). */
  axisFormat?: AxisFormat;
  /** While connected, once read: the position after the last manual move or job. */
  position?: AxisPosition;
  /** While connected with a machine profile: which one (its limits govern moves and jobs). */
  profile?: { id: number; name: string };
  /**
   * The program of the job in `job` (running, or the last one on this connection), whoever started
   * it: the panel, the CLI or the winding door. Watchers follow this, not whatever file is open.
   */
  program?: JobProgram;
  /** The controller's feed override (`M220`) in percent, once set on this connection. */
  feedOverride?: number;
}

/** Which program a job winds: its name (null when the client gave none), fingerprint and size. */
export interface JobProgram {
  name: string | null;
  /** SHA-256 of the program's bytes, as the job history records it. */
  sha256: string;
  /** Commands in the program. */
  total: number;
}

export type MachineEventBody =
  | { type: 'state'; state: MachineState; message?: string }
  | ({ type: 'progress' } & JobProgress)
  | { type: 'action'; text: string }
  | { type: 'waiting-for-user'; text: string }
  | { type: 'log'; direction: 'rx' | 'tx'; text: string }
  | { type: 'error'; message: string }
  /** The position was read (after a manual move, at the end of a job) or became unknown (null). */
  | { type: 'position'; position: AxisPosition | null }
  | { type: 'complete'; acknowledged: number; total: number; elapsed_s: number };

export type MachineEvent = MachineEventBody & { seq: number };

export type JobStatus = 'completed' | 'cancelled' | 'error';

/** How a job ended. A job's `done` promise always resolves with this; it never rejects. */
export interface JobOutcome {
  status: JobStatus;
  sent: number;
  acknowledged: number;
  total: number;
  elapsed_s: number;
  /** The MachineError that ended the job in `error`. */
  error?: Error;
}
