// Manual control of a winder: which G-code each jog-pad action sends, and how Marlin's `M114`
// answer reads as the winder's three axes. The planner's axis format decides the letters: `xab`
// drives the mandrel as A and the delivery head as B, `xyz` drives them as Y and Z (a three-axis
// Marlin build), so a jog of "A" is `A` on one machine and `Y` on the other.
import type { AxisFormat } from '../plan/types.ts';
import { ProgramError } from './program.ts';
import type { AxisPosition } from './types.ts';

/** The winder's axes as the operator names them: carriage, mandrel, delivery head. */
export const MANUAL_AXES = ['X', 'A', 'B'] as const;
export type ManualAxis = (typeof MANUAL_AXES)[number];

export const AXIS_FORMATS = ['xab', 'xyz'] as const satisfies readonly AxisFormat[];

/** Jog distances offered (mm for X, degrees for A and B). */
export const JOG_STEPS = [0.1, 1, 10, 100] as const;

/**
 * The fastest jog accepted, in mm or degrees per minute. Without a machine profile there is no
 * per-axis maximum to check against; this is far above any winder's rapid and only catches a
 * typing slip before it reaches the controller.
 */
export const MAX_JOG_FEED = 20_000;

/** The controller letter of each winder axis under an axis format. */
export function axisLetters(format: AxisFormat): Record<ManualAxis, string> {
  return format === 'xyz' ? { X: 'X', A: 'Y', B: 'Z' } : { X: 'X', A: 'A', B: 'B' };
}

/** `G28` for every axis, or `G28 <letter>` for one. */
export function homeCommand(format: AxisFormat, axis: ManualAxis | 'all'): string {
  return axis === 'all' ? 'G28' : `G28 ${axisLetters(format)[axis]}`;
}

/** `G92` setting one axis, or all three, to zero where they stand. */
export function zeroCommand(format: AxisFormat, axis: ManualAxis | 'all'): string {
  const letters = axisLetters(format);
  const axes = axis === 'all' ? MANUAL_AXES : [axis];
  return `G92 ${axes.map((a) => `${letters[a]}0`).join(' ')}`;
}

/**
 * A relative move of one axis: `G91`, the move, `G90`. `G1` rather than `G0`, because a Marlin
 * built with G0_FEEDRATE moves `G0` at its own rapid rate and the operator chose a feed. The last
 * line puts the controller back in absolute mode, which every streamed program assumes.
 */
export function jogCommands(format: AxisFormat, axis: ManualAxis, step: number, feed: number): string[] {
  return ['G91', `G1 ${axisLetters(format)[axis]}${formatWord(step)} F${formatWord(feed)}`, 'G90'];
}

export const MOTORS_OFF_COMMAND = 'M18';
export const POSITION_COMMAND = 'M114';

/**
 * The winder's position in an `M114` answer (`X:10.00 Y:0.00 Z:0.00 A:90.00 B:0.00 E:0.00 Count
 * X:800 …`): the values before `Count` (the planned position; the step counts after it are raw),
 * read with the axis format's letters. Undefined when no line of the answer has all three.
 */
export function parsePosition(lines: readonly string[], format: AxisFormat): AxisPosition | undefined {
  const letters = axisLetters(format);
  for (const line of lines) {
    const count = line.search(/\bCount\b/);
    const head = count === -1 ? line : line.slice(0, count);
    const values = new Map<string, number>();
    for (const match of head.matchAll(/\b([A-Z]):\s*(-?\d+(?:\.\d+)?)/g)) {
      const letter = match[1] as string;
      if (!values.has(letter)) values.set(letter, Number(match[2]));
    }
    const x = values.get(letters.X);
    const a = values.get(letters.A);
    const b = values.get(letters.B);
    if (x !== undefined && a !== undefined && b !== undefined) return { x, a, b };
  }
  return undefined;
}

/**
 * A console line the host may frame and send. The host's own rules (one line, printable ASCII,
 * no `*`, at most 80 characters) apply after this; these are the ones only a console needs:
 * line numbers and `M110` belong to the host, which numbers every line itself.
 */
export function checkConsoleLine(text: string): void {
  const command = text.replace(/;.*$/s, '').trim();
  if (/^N\d/i.test(command))
    throw new ProgramError('Line numbers and checksums are added by Towpath; send the command alone');
  if (/^M110(\s|$)/i.test(command))
    throw new ProgramError(
      'M110 is not sent by hand: Towpath numbers the lines and keeps the counter in step',
    );
}

/** Whether a console command may move an axis or change coordinates (the position is read after it). */
export function movesOrSetsPosition(text: string): boolean {
  return /^\s*G(0|1|2|3|28|92)(\D|$)/i.test(text);
}

/** Whether a console command asks for the position itself. */
export function asksPosition(text: string): boolean {
  return /^\s*M114(\D|$)/i.test(text);
}

/** A G-code number without exponent or trailing zeros (0.1 → `0.1`, 3000 → `3000`). */
function formatWord(value: number): string {
  return Number(value.toFixed(3)).toString();
}
