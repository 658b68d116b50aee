// A program checked against a machine profile's soft limits before a line is streamed. The G-code
// simulator follows the program's coordinates (X, A and the head B, as the program writes them);
// this adds the frame: a `G92` inside the program re-zeros an axis where it stands, so the limits,
// which are in the controller's coordinates at the start of the job, apply to the program's value
// plus every shift so far. `G28` puts an axis at its zero and clears its shift. A linear move that
// drives an axis faster than the profile's maximum feed for it is refused the same way.
import { GcodeSimulator } from '../gcode/simulator.ts';
import { MANUAL_AXES, type ManualAxis } from './manual.ts';
import { type MachineProfile, outside } from './profile.ts';
import type { Program } from './program.ts';
import type { AxisPosition } from './types.ts';

export interface SoftLimitViolation {
  /** Line number in the program text. */
  sourceLine: number;
  command: string;
  axis: ManualAxis;
  /** Where the axis would go, in the controller's coordinates. */
  target: number;
  message: string;
}

const KEY: Record<ManualAxis, 'x' | 'a' | 'b'> = { X: 'x', A: 'a', B: 'b' };

/** Commands checked between two yields of `softLimitCheck`: a few milliseconds of work. */
export const SOFT_LIMIT_SLICE = 2000;

/**
 * The first line whose move takes an axis beyond the profile's soft limits, or undefined. `start`
 * is where the controller last said the axes stand (0 for an axis not known).
 */
export function firstSoftLimitViolation(
  program: Program,
  profile: MachineProfile,
  start: AxisPosition | undefined,
): SoftLimitViolation | undefined {
  const check = softLimitCheck(program, profile, start);
  for (let step = check.next(); ; step = check.next()) if (step.done) return step.value;
}

/**
 * The same check in slices: it yields after every SOFT_LIMIT_SLICE commands, so a caller whose
 * event loop must stay free (the machine process, for an e-stop) can let it run between them.
 */
export function* softLimitCheck(
  program: Program,
  profile: MachineProfile,
  start: AxisPosition | undefined,
): Generator<void, SoftLimitViolation | undefined> {
  const limited = MANUAL_AXES.filter((axis) => {
    const limits = profile.axes[axis];
    return limits.min !== null || limits.max !== null;
  });
  const feedLimited = MANUAL_AXES.some((axis) => profile.axes[axis].maxFeed !== null);
  if (limited.length === 0 && !feedLimited) return undefined;
  const simulator = new GcodeSimulator();
  const encoder = new TextEncoder();
  /** Controller coordinate minus program coordinate, per axis. */
  const shift = { x: 0, a: 0, b: 0 };
  /** Where each axis stands in the controller's coordinates. */
  const at = { x: start?.x ?? 0, a: start?.a ?? 0, b: start?.b ?? 0 };
  let before = simulator.machine;
  let slice = 0;
  for (const { command, sourceLine } of program.commands) {
    if (++slice === SOFT_LIMIT_SLICE) {
      slice = 0;
      yield;
    }
    try {
      simulator.push(encoder.encode(`${command}\n`));
    } catch {
      // A line the simulator cannot follow (an unsupported command) ends what it can say about
      // positions; the controller judges such a line itself.
      return undefined;
    }
    const after = simulator.machine;
    const word = /^\s*(?:N\d+\s+)?([GM])0*(\d+)/i.exec(command);
    const code = word ? `${(word[1] as string).toUpperCase()}${word[2]}` : '';
    if (feedLimited && (code === 'G0' || code === 'G1')) {
      const fast = tooFast(profile, before, after);
      if (fast)
        return {
          sourceLine,
          command,
          axis: fast.axis,
          target: at[KEY[fast.axis]],
          message: `Line ${sourceLine}: '${command}' moves ${fast.axis} at ${fast.speed} per minute, above its maximum feed ${profile.axes[fast.axis].maxFeed} in profile '${profile.name}'; nothing was streamed`,
        };
    }
    const homed = code === 'G28' ? namedAxes(command, true) : [];
    const set = code === 'G92' ? namedAxes(command, false) : [];
    for (const axis of MANUAL_AXES) {
      const key = KEY[axis];
      if (homed.includes(axis)) {
        shift[key] = 0;
        at[key] = 0;
        continue;
      }
      // A G92 word makes where the axis stands the program's value, whatever the value was before.
      if (set.includes(axis)) {
        shift[key] = at[key] - after[key];
        continue;
      }
      if (after[key] === before[key]) continue;
      at[key] = after[key] + shift[key];
      if (!limited.includes(axis)) continue;
      const beyond = outside(profile.axes[axis], at[key]);
      if (beyond) {
        const target = Number(at[key].toFixed(3));
        return {
          sourceLine,
          command,
          axis,
          target,
          message: `Line ${sourceLine}: '${command}' moves ${axis} to ${target}, ${beyond} of profile '${profile.name}'; nothing was streamed`,
        };
      }
    }
    before = after;
  }
  return undefined;
}

/**
 * The first axis a linear move drives faster than the profile's maximum feed allows. The feed is
 * taken, as Marlin plans a move, along the move's length in the axes' own units, so each axis goes
 * at its share of it: the whole feed for a move of one axis, less for a combined move.
 */
function tooFast(
  profile: MachineProfile,
  before: { x: number; a: number; b: number },
  after: { x: number; a: number; b: number; feed: number },
): { axis: ManualAxis; speed: number } | undefined {
  const length = Math.hypot(after.x - before.x, after.a - before.a, after.b - before.b);
  if (length === 0) return undefined;
  for (const axis of MANUAL_AXES) {
    const maxFeed = profile.axes[axis].maxFeed;
    if (maxFeed === null) continue;
    const speed = (after.feed * Math.abs(after[KEY[axis]] - before[KEY[axis]])) / length;
    // A thousandth of slack: a feed planned to equal the maximum passes.
    if (speed > maxFeed * (1 + 1e-6)) return { axis, speed: Number(speed.toFixed(1)) };
  }
  return undefined;
}

/**
 * The axes a `G28` or `G92` line names (A or Y, B or Z); a `G28` naming none homes all three, a
 * `G92` naming none sets none.
 */
function namedAxes(command: string, noneMeansAll: boolean): ManualAxis[] {
  const letters = command
    .replace(/;.*$/, '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((word) => word.charAt(0).toUpperCase());
  const named = MANUAL_AXES.filter((axis) =>
    letters.some((letter) =>
      axis === 'X' ? letter === 'X' : axis === 'A' ? 'AY'.includes(letter) : 'BZ'.includes(letter),
    ),
  );
  return named.length > 0 || !noneMeansAll ? named : [...MANUAL_AXES];
}
