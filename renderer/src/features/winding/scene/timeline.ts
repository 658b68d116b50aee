// The program's timeline over the preview geometry: which vertex a command reached, and machine time
// at a command and back. Plain array searches, used where the geometry is (the scene, the page).
import type { ViewGeometry } from '../preview/protocol.ts';

/** Index of the last vertex whose command is ≤ `command` (0, the start vertex, at least). */
export function lastVertexAtOrBefore(commandIndex: Uint32Array, command: number): number {
  let lo = 0;
  let hi = commandIndex.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((commandIndex[mid] as number) <= command) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Machine time at a command, from the geometry's per-vertex times. */
export function timeAt(g: ViewGeometry, command: number): number {
  return g.elapsed[lastVertexAtOrBefore(g.commandIndex, command)] ?? 0;
}

/** The last command reached by machine time `t`. */
export function commandAtTime(g: ViewGeometry, t: number): number {
  let lo = 0;
  let hi = g.vertexCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((g.elapsed[mid] as number) <= t) lo = mid;
    else hi = mid - 1;
  }
  return g.commandIndex[lo] ?? 0;
}
