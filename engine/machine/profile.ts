// A machine profile: the winder an operator stands at — its port, baud rate and axis letters, how
// far and how fast each axis may go, which axes can home, the delivery-eye geometry the vessel
// planner uses, and the controller's queue depth that resume counts back by. One zod schema gives
// the machine door its validation, the panel and the CLI their types, and the door's docs.
import { z } from 'zod';
import { MachineSchema } from '../wind/schema.ts';
import { BAUD_RATES } from './door.ts';
import { AXIS_FORMATS, axisLetters, homeCommand, MANUAL_AXES, type ManualAxis } from './manual.ts';
import { ProgramError } from './program.ts';

/**
 * Lines the controller may have taken but not yet moved when a job stops: Marlin's planner buffer
 * plus its serial buffer on a default build. Resume counts back this far from the last acknowledged line.
 */
export const DEFAULT_QUEUE_DEPTH = 20;

/** A missing field says so; a field of the wrong type says what it must be. */
const typeError = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'Field required' : `must be ${what}`;

const finite = (what: string) =>
  z
    .number({ error: typeError(`a number (${what})`) })
    .refine(Number.isFinite, `must be a finite number (${what})`);

/** One axis: soft limits (null: unlimited, as a mandrel that turns for ever), fastest feed, homing. */
export const axisProfile = z
  .object({
    min: finite('mm or degrees').nullable().default(null),
    max: finite('mm or degrees').nullable().default(null),
    /** mm or degrees per minute; null: only the door's overall jog ceiling applies. */
    maxFeed: finite('per minute')
      .refine((feed) => feed > 0, 'must be more than 0')
      .nullable()
      .default(null),
    /** The axis has an endstop, so `G28` may be sent for it. */
    homing: z.boolean().default(false),
  })
  .refine((axis) => axis.min === null || axis.max === null || axis.min < axis.max, {
    message: 'min must be less than max',
    path: ['max'],
  });
export type AxisProfile = z.infer<typeof axisProfile>;

/**
 * The vessel planner's `machine` section, its fields taken from the wind schema so the two never
 * drift apart. Absent fields stay absent (no schema defaults filled in): a profile stores only what
 * the operator gave, and a `.wind` without its own section is planned with what the profile says.
 */
const eyeFields = MachineSchema.shape;
export const eyeGeometry = z.object({
  eyeRadius: eyeFields.eyeRadius.removeDefault().optional(),
  carriageMin: eyeFields.carriageMin.removeDefault().optional(),
  carriageMax: eyeFields.carriageMax.removeDefault().optional(),
  eyeClearance: eyeFields.eyeClearance.removeDefault().optional(),
});

/**
 * The door's words for a bound the wind schema leaves to zod's default message ("Too small: expected
 * number to be >0"); passed to a parse as its error map, so a field's own message still wins.
 */
export function fieldIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'too_small' && typeof issue.minimum === 'number')
    return issue.inclusive ? `must be ${issue.minimum} or more` : `must be more than ${issue.minimum}`;
  if (issue.code === 'too_big' && typeof issue.maximum === 'number')
    return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`;
  return undefined;
}

const unlimited = { min: null, max: null, maxFeed: null, homing: false };

/** What a client sends to create or replace a profile. */
export const profileInput = z.object({
  name: z
    .string({ error: typeError('a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(80, 'must be at most 80 characters'),
  port: z
    .string({ error: typeError('a string') })
    .trim()
    .min(1, 'must not be empty')
    .refine((port) => !port.includes('\0'), 'must not contain NUL characters'),
  baudRate: z
    .number({ error: typeError('a number') })
    .int()
    .refine(
      (baud) => (BAUD_RATES as readonly number[]).includes(baud),
      `must be one of ${BAUD_RATES.join(', ')}`,
    )
    .default(250000),
  axisFormat: z.enum(AXIS_FORMATS, { error: `must be one of ${AXIS_FORMATS.join(', ')}` }).default('xab'),
  axes: z
    .object({
      X: axisProfile.default(unlimited),
      A: axisProfile.default(unlimited),
      B: axisProfile.default(unlimited),
    })
    .default({ X: unlimited, A: unlimited, B: unlimited }),
  machine: eyeGeometry.default({}),
  queueDepth: z
    .number({ error: typeError('a number') })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(10_000, 'must be at most 10000')
    .default(DEFAULT_QUEUE_DEPTH),
});
export type ProfileInput = z.input<typeof profileInput>;
export type ProfileFields = z.output<typeof profileInput>;

export interface MachineProfile extends ProfileFields {
  id: number;
}

export interface ProfileList {
  profiles: MachineProfile[];
}

/** Which axes `G28` may name under a profile; all three without one. */
export function homeableAxes(profile: MachineProfile | undefined): ManualAxis[] {
  return MANUAL_AXES.filter((axis) => !profile || profile.axes[axis].homing);
}

/**
 * `G28` as the profile allows: one axis only if it can home; "all" homes the axes that can (a bare
 * `G28` when all three can). A ProgramError (400) names what cannot home.
 */
export function profileHomeCommand(profile: MachineProfile, axis: ManualAxis | 'all'): string {
  const able = homeableAxes(profile);
  if (axis !== 'all') {
    if (!able.includes(axis))
      throw new ProgramError(`${axis} cannot home in profile '${profile.name}' (no endstop set for it)`);
    return homeCommand(profile.axisFormat, axis);
  }
  if (able.length === 0) throw new ProgramError(`No axis can home in profile '${profile.name}'`);
  if (able.length === MANUAL_AXES.length) return homeCommand(profile.axisFormat, 'all');
  const letters = axisLetters(profile.axisFormat);
  return `G28 ${able.map((a) => letters[a]).join(' ')}`;
}

/**
 * A jog checked against the profile before anything is sent: a feed above the axis's maximum is
 * the request's fault (ProgramError, 400); a target beyond a soft limit is the machine's position's
 * (SoftLimitError, 409). `from` is where the axis stands now, as the controller last reported it.
 */
export function checkJog(
  profile: MachineProfile,
  axis: ManualAxis,
  step: number,
  feed: number,
  from: number | undefined,
): void {
  checkJogFeed(profile, axis, feed);
  const limits = profile.axes[axis];
  if (limits.min === null && limits.max === null) return;
  if (from === undefined)
    throw new SoftLimitError(
      `The position of ${axis} is unknown, so a jog cannot be checked against the soft limits of profile '${profile.name}'; home or read the position first`,
    );
  const target = from + step;
  const beyond = outside(limits, target);
  if (beyond)
    throw new SoftLimitError(
      `Jog refused: ${axis} would go to ${round(target)}, ${beyond} of profile '${profile.name}'; nothing was sent`,
    );
}

/** A jog faster than the axis may go is refused before anything else is looked at. */
export function checkJogFeed(profile: MachineProfile, axis: ManualAxis, feed: number): void {
  const maxFeed = profile.axes[axis].maxFeed;
  if (maxFeed !== null && feed > maxFeed)
    throw new ProgramError(
      `Jog feed ${feed} is above the maximum feed of ${axis} (${maxFeed}) in profile '${profile.name}'`,
    );
}

/** A move the profile's soft limits forbid; nothing was sent. */
export class SoftLimitError extends Error {
  override name = 'SoftLimitError';
}

/** Which limit `value` breaks, spelled for a message, or undefined inside them. */
export function outside(limits: AxisProfile, value: number): string | undefined {
  // A thousandth below the limit's own rounding: a program planned to end exactly on a limit passes.
  if (limits.min !== null && value < limits.min - 1e-6) return `below the soft limit ${limits.min}`;
  if (limits.max !== null && value > limits.max + 1e-6) return `above the soft limit ${limits.max}`;
  return undefined;
}

function round(value: number): string {
  return Number(value.toFixed(3)).toString();
}
