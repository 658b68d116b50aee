// Resuming a stopped winding from a checkpoint (a layer or circuit start): which checkpoint is
// certainly behind the machine, the lead-in that brings the machine from where it stands to the
// checkpoint's state, and the program that is streamed — the lead-in, then the program's tail
// from the checkpoint's line. Never a cut at an arbitrary line: the mandrel's frame (its `G92`
// re-zeros) and the head's lean are restored, not guessed from the last line.
import { fmt6, pmod } from '../numeric.ts';
import { type Checkpoint, type ProgramState, programLines } from '../plan/checkpoints.ts';
import type { AxisFormat } from '../plan/types.ts';
import { axisLetters } from './manual.ts';
import { DEFAULT_QUEUE_DEPTH } from './profile.ts';

// Lines a controller may have acknowledged without having moved them yet, when its profile says
// nothing: Marlin's planner buffer (16 blocks) plus its command queue (4 lines) by default.
export { DEFAULT_QUEUE_DEPTH };

/** The pause in a lead-in while the operator re-attaches the tow (Marlin's `M0` with a message). */
export const REATTACH_PAUSE = 'M0 Re-attach the tow, then resume';

/**
 * The latest checkpoint whose every earlier command the machine certainly executed: at or before
 * the last acknowledged command minus the queue depth. Undefined when even the first checkpoint
 * is not that certain (stream the program from its start instead).
 */
export function suggestCheckpoint(
  checkpoints: readonly Checkpoint[],
  lastAcknowledged: number,
  queueDepth: number = DEFAULT_QUEUE_DEPTH,
): Checkpoint | undefined {
  const certain = lastAcknowledged - queueDepth;
  let found: Checkpoint | undefined;
  for (const checkpoint of checkpoints) {
    if (checkpoint.command > certain) break;
    found = checkpoint;
  }
  return found;
}

/** Where the machine stands before the lead-in: its position in the controller's coordinates. */
export interface ResumeStart {
  x: number;
  a: number;
  b: number;
  /** The program's re-zero sum that the controller's mandrel coordinate is in (ProgramState.rezero). */
  rezero: number;
}

export interface LeadInOptions {
  from: ResumeStart;
  /**
   * The tow still runs from the delivery eye to the part: the mandrel may only turn forward, or
   * it would unwind what is laid. Without it the shortest way round is taken.
   */
  towAttached: boolean;
  /** Stop (`M0`) before the frame is restored, so the operator can re-attach the tow. */
  pause: boolean;
  axisFormat: AxisFormat;
}

/** Angles within this of a whole turn are the same angle (the program's six decimals). */
const SAME_ANGLE = 1e-6;

/**
 * The mandrel coordinate, in the controller's frame, that puts the mandrel where the checkpoint
 * needs it (the same angle modulo a turn): forward from `from.a` when the tow is attached,
 * otherwise whichever way is shorter.
 */
export function leadInTarget(checkpoint: ProgramState, from: ResumeStart, towAttached: boolean): number {
  let turn = pmod(checkpoint.a + checkpoint.rezero - from.rezero - from.a, 360);
  if (360 - turn < SAME_ANGLE || turn < SAME_ANGLE) turn = 0;
  if (!towAttached && turn > 180) turn -= 360;
  return from.a + turn;
}

/**
 * The lead-in to a checkpoint: the feed the program has in force there, the head upright, the
 * carriage to the checkpoint's X, the mandrel to its angle, the optional pause, `G92` to the
 * mandrel coordinate the program expects there, and the head's lean. Then the tail follows.
 */
export function resumeLeadIn(checkpoint: ProgramState, options: LeadInOptions): string[] {
  const { A, B } = axisLetters(options.axisFormat);
  const lines: string[] = [];
  if (checkpoint.feed > 0) lines.push(`G0 F${fmt6(checkpoint.feed)}`);
  lines.push(`G0 ${B}${fmt6(0)}`);
  lines.push(`G0 X${fmt6(checkpoint.x)}`);
  lines.push(`G0 ${A}${fmt6(leadInTarget(checkpoint, options.from, options.towAttached))}`);
  if (options.pause) lines.push(REATTACH_PAUSE);
  lines.push(`G92 ${A}${fmt6(checkpoint.a)}`);
  lines.push(`G0 ${B}${fmt6(checkpoint.b)}`);
  return lines;
}

/**
 * The program a resume streams: the planner's header (so it previews and simulates like any
 * Towpath program), a comment naming the checkpoint, the lead-in, and every line of `text` from
 * the checkpoint's line on.
 */
export function resumedProgram(
  text: string,
  header: string | null,
  checkpoint: Checkpoint,
  leadIn: readonly string[],
): string {
  const lines = programLines(text);
  const tail = lines.slice(checkpoint.line - 1);
  const head = header === null ? [] : [header];
  const note = `; Resumed from checkpoint ${checkpoint.index} (line ${checkpoint.line}); lead-in follows`;
  return [...head, note, ...leadIn, '; End of lead-in', ...tail].join('\n');
}
