import { join } from 'node:path';

/**
 * The planner's reference cases (`reference/winding/`, one folder per case), as a file-system
 * path: tests, end-to-end specs and benches all read them from here. A path rather than a URL
 * because under jsdom the global URL class is not Node's and the fs functions refuse it.
 */
export const REFERENCE_ROOT = join(import.meta.dirname, '..', '..', 'reference', 'winding');
