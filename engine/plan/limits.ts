// Sizes the planner refuses to exceed, so that a definition cannot make it run out of memory or
// time before it says why (spec/winding.md §3, check 3).

/** Lines a whole program may have. */
export const MAX_PROGRAM_LINES = 50_000_000;

/** The text of check 3. */
export const PROGRAM_TOO_LONG_TEXT = `the program would exceed ${MAX_PROGRAM_LINES} G-code lines`;
