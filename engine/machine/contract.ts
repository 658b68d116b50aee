// The machine API's contract: route paths, request bodies, response shapes and the state predicates
// that the machine door, the LAN door's forwarding, the CLI and the renderer's machine panel all
// read. One spelling of the controller's states: nothing outside this module decides from a raw
// state string whether a job may start or the machine is busy.
import { z } from 'zod';
import type { MACHINE_ROUTES } from './door.ts';
import { AXIS_FORMATS, JOG_STEPS, MANUAL_AXES, MAX_JOG_FEED } from './manual.ts';
import type { MachineState, MachineStatus } from './types.ts';

export * from './door.ts';

/**
 * Baud rates a connect request may ask for: the standard rates Marlin builds and USB serial
 * adapters use. The panel offers these, and the door refuses any other number before a port is
 * opened, so a mistyped rate never reaches the serial driver.
 */
export const BAUD_RATES = [
  9600, 19200, 38400, 57600, 115200, 230400, 250000, 460800, 500000, 921600, 1000000, 1500000, 2000000,
] as const;

export type MachineRoute = keyof typeof MACHINE_ROUTES;

/** Routes that only read; everything else moves or controls the machine. */
export const READ_ONLY_ROUTES: readonly MachineRoute[] = ['status', 'events', 'ports'];

/** What a signed-in LAN user may read through the LAN door (control stays on the workstation). */
export const LAN_READABLE_ROUTES: readonly MachineRoute[] = ['status', 'events'];

/** HTTP method of each route. */
export function methodOf(route: MachineRoute): 'GET' | 'POST' {
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

export const connectRequest = z.object({
  /** Which letters the winder's A and B axes are on this controller (xab: A, B; xyz: Y, Z). */
  axisFormat: z.enum(AXIS_FORMATS, { error: `must be one of ${AXIS_FORMATS.join(', ')}` }).optional(),
  // A NUL ends the path at the system call: "/dev/ttyUSB0\0x" would open something else.
  port: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((port) => !port.includes('\0'), 'must not contain NUL characters'),
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
export type ConnectRequest = z.infer<typeof connectRequest>;

export const commandRequest = z.object({ command: z.string() });
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
