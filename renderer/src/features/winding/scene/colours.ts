// The 3D view's colours, shared by the scene (which draws them) and the page (the layer toggles' swatches).

/** Distinct layer colours (colour-blind friendly order), repeated for programs with more layers. */
export const LAYER_COLOURS = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#56b4e9',
  '#d55e00',
  '#f0e442',
  '#8c564b',
];

/** Not yet wound: a muted violet, apart from every layer colour and from the grey mandrel. */
export const PENDING_COLOUR = '#6f5f8f';

/**
 * A '#rrggbb' colour's components in 0–1 exactly as written: the path's shader writes them to the
 * screen unchanged (three's Color would convert them to its linear working space first).
 */
export function rgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}
