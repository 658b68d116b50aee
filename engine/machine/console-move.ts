// A `G0`/`G1` line typed in the console, checked against the connected profile before it is sent:
// its feed against the maximum feed of every axis it names, and, after `G91`, each step from where
// the axis stands against the soft limits (a relative move with the position unknown cannot be
// checked, so it is refused). An absolute console move goes through the program check of
// soft-limits.ts instead, which also follows `G92` and `G28`.
import type { AxisFormat } from '../plan/types.ts';
import { axisLetters, MANUAL_AXES, type ManualAxis } from './manual.ts';
import { type MachineProfile, outside, SoftLimitError } from './profile.ts';
import { ProgramError } from './program.ts';
import type { AxisPosition } from './types.ts';

const KEY: Record<ManualAxis, keyof AxisPosition> = { X: 'x', A: 'a', B: 'b' };

/** A linear move (`G0`, `G1`, `G00`, `G01`, with an optional line number). */
export function isConsoleMove(command: string): boolean {
  return /^\s*(?:N\d+\s+)?G0?[01](?!\d)/i.test(command);
}

/** The numeric words of a line, by upper-case letter (a comment dropped). */
function wordsOf(command: string): Map<string, number> {
  const words = new Map<string, number>();
  const body = command.replace(/;.*$/, '').replace(/\([^)]*\)/g, ' ');
  for (const match of body.matchAll(/([A-Za-z])\s*([-+]?(?:\d+\.?\d*|\.\d+))/g))
    words.set((match[1] as string).toUpperCase(), Number(match[2]));
  return words;
}

export interface ConsoleMoveContext {
  axisFormat: AxisFormat;
  /** The controller was last told `G91`. */
  relative: boolean;
  /** Where the controller last said the axes stand; undefined when not known. */
  position: AxisPosition | undefined;
}

/**
 * Throws ProgramError (400) for a feed above an axis's maximum, SoftLimitError (409) for a relative
 * step beyond a soft limit or one whose start is unknown; returns when the line may be sent.
 */
export function checkConsoleMove(
  profile: MachineProfile,
  command: string,
  context: ConsoleMoveContext,
): void {
  if (!isConsoleMove(command)) return;
  const words = wordsOf(command);
  const letters = axisLetters(context.axisFormat);
  const named = MANUAL_AXES.filter((axis) => words.has(letters[axis]));
  const feed = words.get('F');
  if (feed !== undefined)
    for (const axis of named) {
      const maxFeed = profile.axes[axis].maxFeed;
      if (maxFeed !== null && feed > maxFeed)
        throw new ProgramError(
          `'${command.trim()}': feed ${feed} is above the maximum feed of ${axis} (${maxFeed}) in profile '${profile.name}'; nothing was sent`,
        );
    }
  if (!context.relative) return;
  for (const axis of named) {
    const limits = profile.axes[axis];
    if (limits.min === null && limits.max === null) continue;
    const from = context.position?.[KEY[axis]];
    if (from === undefined)
      throw new SoftLimitError(
        `'${command.trim()}' is a relative move (after G91) and the position of ${axis} is unknown, so it cannot be checked against the soft limits of profile '${profile.name}'; home or read the position first; nothing was sent`,
      );
    const target = from + (words.get(letters[axis]) as number);
    const beyond = outside(limits, target);
    if (beyond)
      throw new SoftLimitError(
        `'${command.trim()}' moves ${axis} to ${Number(target.toFixed(3))}, ${beyond} of profile '${profile.name}'; nothing was sent`,
      );
  }
}
