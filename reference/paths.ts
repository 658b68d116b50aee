import { join } from 'node:path';

// Kept beside the data, so that tests of every part of the tree (engine, renderer, electron,
// bridge, server) find it without reaching into another part's code.

/**
 * The planner's reference cases (`reference/winding/`, one folder per case), as a file-system
 * path: tests, end-to-end specs and benches all read them from here. A path rather than a URL
 * because under jsdom the global URL class is not Node's and the fs functions refuse it.
 */
export const REFERENCE_ROOT = join(import.meta.dirname, 'winding');

/**
 * The reference planner 0.10's reducing-cone cases (`reference/winding-cones/`), kept apart from
 * `REFERENCE_ROOT` because the tests there treat every folder as a 0.6.2 case.
 */
export const CONE_REFERENCE_ROOT = join(import.meta.dirname, 'winding-cones');
