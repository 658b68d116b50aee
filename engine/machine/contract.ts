// The machine API's contract: route paths, request bodies, response shapes and the state predicates
// that the machine door, the LAN door's forwarding, the CLI and the renderer's machine panel all
// read. One spelling of the controller's states: nothing outside this module decides from a raw
// state string whether a job may start or the machine is busy.
import { z } from 'zod';
import { BAUD_RATES, type MACHINE_ROUTES } from './door.ts';
import { AXIS_FORMATS, JOG_STEPS, MANUAL_AXES, MAX_JOG_FEED } from './manual.ts';
import type { MachineState, MachineStatus } from './types.ts';

export * from './door.ts';
export * from './job-record.ts';
export * from './profile.ts';

export type MachineRoute = keyof typeof MACHINE_ROUTES;

/** Routes that only read; everything else moves or controls the machine. */
export const READ_ONLY_ROUTES: readonly MachineRoute[] = [
  'status',
  'events',
  'ports',
  'jobs',
  'jobsCsv',
  'jobProgram',
];

/** What a signed-in LAN user may read through the LAN door (control stays on the workstation). */
export const LAN_READABLE_ROUTES: readonly MachineRoute[] = [
  'status',
  'events',
  'jobs',
  'jobsCsv',
  'jobProgram',
];

export type MachineMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Routes answering more than one method (a collection and its items). */
const METHODS: Partial<Record<MachineRoute, MachineMethod[]>> = {
  profiles: ['GET', 'POST'],
  profile: ['GET', 'PUT', 'DELETE'],
};

/** HTTP method (or methods) of each route. */
export function methodOf(route: MachineRoute): MachineMethod | MachineMethod[] {
  const methods = METHODS[route];
  if (methods) return [...methods];
  return READ_ONLY_ROUTES.includes(route) ? 'GET' : 'POST';
}

export const streamRequest = z.object({
  gcode: z.string(),
  port: z.string().trim().min(1, 'must not be empty'),
  baudRate: z.number().int().optional(),
});
export type StreamRequest = z.infer<typeof streamRequest>;

export interface StreamResponse {
  status: 'completed' | 'cancelled' | 'error';
  acknowledged: number;
  total: number;
  elapsed_s: number;
  detail?: string;
}

const connectFields = z.object({
  /**
   * Connect as this machine profile says (port, baud rate, axis format): its soft limits, feeds and
   * homing then govern manual moves and jobs. The fields below override nothing when it is given.
   */
  profileId: z.number({ error: 'must be a number' }).int().positive().optional(),
  /** Which letters the winder's A and B axes are on this controller (xab: A, B; xyz: Y, Z). */
  axisFormat: z.enum(AXIS_FORMATS, { error: `must be one of ${AXIS_FORMATS.join(', ')}` }).optional(),
  // A NUL ends the path at the system call: "/dev/ttyUSB0\0x" would open something else.
  port: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((port) => !port.includes('\0'), 'must not contain NUL characters')
    .optional(),
  // From the list only: an arbitrary integer wraps when the driver narrows it (10¹² became −727379968).
  baudRate: z
    .number()
    .int()
    .refine(
      (baud) => (BAUD_RATES as readonly number[]).includes(baud),
      `must be one of ${BAUD_RATES.join(', ')}`,
    )
    .optional(),
});
/** A port, or a profile that names one. */
export const connectRequest = connectFields.refine(
  (body) => body.profileId !== undefined || body.port !== undefined,
  { message: 'Field required', path: ['port'] },
);
export type ConnectRequest = z.infer<typeof connectRequest>;

/**
 * `?name=` on the job, dry-run and stream routes: the program's file name for the job history
 * (the body is the G-code alone, streamed through untouched).
 */
export const jobQuery = z.object({
  name: z
    .string()
    .trim()
    .max(255, 'must be at most 255 characters')
    // `?name=` with nothing after it names nothing.
    .transform((name) => (name === '' ? undefined : name))
    .optional(),
});

export const commandRequest = z.object({ command: z.string() });

/** The feed override's range in percent: a winder's tow tension allows no wilder factor. */
export const FEED_OVERRIDE_MIN = 10;
export const FEED_OVERRIDE_MAX = 200;
export const feedRequest = z.object({
  percent: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(FEED_OVERRIDE_MIN, `must be at least ${FEED_OVERRIDE_MIN}`)
    .max(FEED_OVERRIDE_MAX, `must be at most ${FEED_OVERRIDE_MAX}`),
});
export interface CommandResponse {
  /** The controller's lines up to and including its `ok` (none for `M112`, which is the e-stop). */
  responses: string[];
}

const manualAxis = z.enum(MANUAL_AXES, { error: `must be one of ${MANUAL_AXES.join(', ')}` });
const axisOrAll = z.enum([...MANUAL_AXES, 'all'], { error: `must be one of ${MANUAL_AXES.join(', ')}, all` });

/** `axis` absent means all three. */
export const homeRequest = z.object({ axis: axisOrAll.optional() });
export const zeroRequest = homeRequest;
export type HomeRequest = z.infer<typeof homeRequest>;

const jogSteps = JOG_STEPS.flatMap((step) => [step, -step]);
export const jogRequest = z.object({
  axis: manualAxis,
  /** Signed: the direction is its sign (mm for X, degrees for A and B). */
  step: z.number().refine((step) => jogSteps.includes(step), `must be one of ±${JOG_STEPS.join(', ±')}`),
  /** mm or degrees per minute. */
  feed: z.number().refine((feed) => Number.isFinite(feed) && feed > 0 && feed <= MAX_JOG_FEED, {
    message: `must be more than 0 and at most ${MAX_JOG_FEED}`,
  }),
});
export type JogRequest = z.infer<typeof jogRequest>;

/** What a manual action answers: the lines sent, the controller's answers, and the status after. */
export interface ManualResponse {
  commands: string[];
  responses: string[];
  status: MachineStatus;
}

/**
 * Resume a stopped job from a checkpoint: the program again (text or path), which checkpoint
 * (its number, or `auto` for the last circuit that certainly completed), and whether the tow
 * still runs to the part (then the mandrel only turns forward; otherwise the lead-in pauses for
 * the operator to re-attach it). `acknowledged` defaults to the stopped job's own count.
 */
export const resumeJobRequest = z
  .object({
    gcode: z.string().optional(),
    path: z.string().min(1, 'must not be empty').optional(),
    checkpoint: z.union([z.literal('auto'), z.number().int().positive()], {
      error: 'must be auto or a checkpoint number',
    }),
    towAttached: z.boolean({ error: 'must be true or false' }),
    pause: z.boolean({ error: 'must be true or false' }).optional(),
    acknowledged: z.number().int().nonnegative().optional(),
    queueDepth: z.number().int().min(0).max(10_000).optional(),
    /** The job this one continues (its id in the job history). */
    continues: z.number().int().positive().optional(),
  })
  .refine((body) => (body.gcode === undefined) !== (body.path === undefined), {
    message: 'give the program as gcode or as path, not both',
    path: ['gcode'],
  });
export type ResumeJobRequest = z.infer<typeof resumeJobRequest>;

export interface ResumeJobResponse {
  total: number;
  /** The checkpoint resumed from, as `towpath checkpoints` numbers them. */
  checkpoint: { index: number; line: number; command: number; description: string };
  leadIn: string[];
  continues: number | null;
  status: MachineStatus;
}

export const jobRequest = z.union([
  z.object({ gcode: z.string(), path: z.undefined().optional() }),
  z.object({ path: z.string().min(1, 'must not be empty'), gcode: z.undefined().optional() }),
]);

export interface EstopResponse {
  /** False when no port was open to write M112 to. */
  sent: boolean;
  status: MachineStatus;
}
export interface JobStartedResponse {
  total: number;
  status: MachineStatus;
}
export interface SerialPortInfo {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  vendorId?: string;
  productId?: string;
}
export interface SerialPortList {
  ports: SerialPortInfo[];
  /** Set when the list may be incomplete or lacks details. */
  warning?: string;
}

/** A port is open and the controller answered. */
export function isConnected(state: MachineState): boolean {
  return (
    state === 'ready' ||
    state === 'streaming' ||
    state === 'paused' ||
    state === 'completed' ||
    state === 'cancelled'
  );
}

/** A job holds the machine: nothing else may connect, disconnect or start a job. */
export function isBusy(state: MachineState): boolean {
  return state === 'streaming' || state === 'paused' || state === 'connecting';
}

/** A new job may start on the open connection. */
export function mayStartJob(state: MachineState): boolean {
  return state === 'ready' || state === 'completed' || state === 'cancelled';
}

export function mayPause(state: MachineState): boolean {
  return state === 'streaming';
}

export function mayResume(state: MachineState): boolean {
  return state === 'paused';
}

export function mayCancel(state: MachineState): boolean {
  return state === 'streaming' || state === 'paused';
}
