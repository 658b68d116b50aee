// The planner's public API (spec/winding.md §3, §4): a definition in, G-code bytes and the plan
// summary out.
import type { WindDefinition } from '../wind/types.ts';
import { Planner } from './planner.ts';
import type { PlanOptions, PlanSummary } from './types.ts';

export type { AxisFormat, LayerMetrics, PlanOptions, PlanSummary } from './types.ts';

/**
 * Plans `definition` and yields the G-code as chunks of ASCII bytes (about 64 KiB each); the
 * generator's return value is the summary.
 *
 * !!! Every chunk is a view of ONE buffer that the planner reuses: a chunk is valid only until
 * the consumer calls next() again. Write or copy it before resuming; keeping references to
 * earlier chunks yields garbage. !!!
 *
 * Throws `PlanningError` (`Layer {i}: …`) from next() as soon as a check or guard fails (§3);
 * chunks already yielded are then an incomplete program and must be discarded.
 */
export function planChunks(
  definition: WindDefinition,
  options: PlanOptions = {},
): Generator<Uint8Array, PlanSummary, undefined> {
  return new Planner(definition, options.axisFormat ?? 'xab', options.verbose ?? false).run();
}

/** Plans into one string: for small programs and tests (a big job belongs in `planChunks`). */
export function planToString(
  definition: WindDefinition,
  options: PlanOptions = {},
): { gcode: string; summary: PlanSummary } {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  const chunks = planChunks(definition, options);
  for (;;) {
    const step = chunks.next();
    if (step.done) return { gcode: parts.join(''), summary: step.value };
    parts.push(decoder.decode(step.value));
  }
}

/**
 * Plans into a discarding sink: the summary planning would give, or the `PlanningError` it would
 * throw (what `/validate` reports).
 */
export function checkPlan(definition: WindDefinition, options: PlanOptions = {}): PlanSummary {
  const chunks = planChunks(definition, options);
  for (;;) {
    const step = chunks.next();
    if (step.done) return step.value;
  }
}
