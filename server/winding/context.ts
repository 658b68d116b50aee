import type { PathPolicy } from '../http/paths.ts';
import type { PlannerThreads } from './planner-threads.ts';
import type { Slots } from './slots.ts';

/** What the winding door's routes share; built once per door start. */
export interface WindingContext {
  policy: PathPolicy;
  /** At most 4 planner runs (plan and validate) at once, FIFO (spec §7.3). */
  planners: Slots;
  /** Aborted when the door closes: planning stops at its next slice and removes its temporary file. */
  stopping?: AbortSignal;
  /** Notes a folder plans are written to, before the first byte (see output-folders.ts). */
  noteOutputFolder?(folder: string): Promise<void>;
  /**
   * Where validate and plan run: on these threads, below the main thread's priority (the door in
   * the core); without them, here, in slices (a planner thread itself, the MCP sidecar).
   */
  threads?: PlannerThreads;
}
