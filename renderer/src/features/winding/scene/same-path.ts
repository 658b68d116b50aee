// Whether a re-plan left the 3D path as it was: an edit to a figure that does not move the tow
// (the feed rate, say) gives the same arrays, and the bands already on the GPU can stay there.
import type { ViewGeometry } from '../preview/protocol.ts';

type Drawn = Pick<
  ViewGeometry,
  'positions' | 'commandIndex' | 'layerOf' | 'layers' | 'vertexCount' | 'commandCount' | 'mandrel' | 'tow'
>;

function sameArray(a: ArrayLike<number> | null, b: ArrayLike<number> | null): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Everything the scene builds its path, tables, mandrel and box from is equal in `a` and `b`. */
export function samePath(a: Drawn, b: Drawn): boolean {
  if (a.vertexCount !== b.vertexCount || a.commandCount !== b.commandCount) return false;
  if (a.layers.length !== b.layers.length) return false;
  for (let k = 0; k < a.layers.length; k++) {
    const x = a.layers[k];
    const y = b.layers[k];
    if (x?.windType !== y?.windType || x?.firstVertex !== y?.firstVertex || x?.vertexCount !== y?.vertexCount)
      return false;
  }
  const m = a.mandrel;
  const n = b.mandrel;
  if (m.radius !== n.radius || m.startX !== n.startX || m.length !== n.length || m.fitted !== n.fitted)
    return false;
  if (!sameArray(m.profile?.x ?? null, n.profile?.x ?? null)) return false;
  if (!sameArray(m.profile?.r ?? null, n.profile?.r ?? null)) return false;
  if (a.tow?.width !== b.tow?.width || a.tow?.thickness !== b.tow?.thickness) return false;
  const used = 3 * a.vertexCount;
  return (
    sameArray(a.positions.subarray(0, used), b.positions.subarray(0, used)) &&
    sameArray(a.commandIndex.subarray(0, a.vertexCount), b.commandIndex.subarray(0, b.vertexCount)) &&
    sameArray(a.layerOf.subarray(0, a.vertexCount), b.layerOf.subarray(0, b.vertexCount))
  );
}
