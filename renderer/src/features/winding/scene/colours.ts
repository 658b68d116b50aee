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

/**
 * Layer k's colour: the eight above first, then hues a golden angle apart at two lightnesses, so
 * any number of layers stay apart from their neighbours (and saturated, apart from the pending grey-violet).
 */
export function layerColour(k: number): string {
  const fixed = LAYER_COLOURS[k];
  if (fixed !== undefined) return fixed;
  const hue = (k * 137.508) % 360;
  const lightness = k % 2 === 0 ? 0.42 : 0.56;
  return hslHex(hue, 0.7, lightness);
}

function hslHex(h: number, s: number, l: number): string {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const part = (n: number) => {
    const k = (n + h / 30) % 12;
    const v = l - (c / 2) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${part(0)}${part(8)}${part(4)}`;
}

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
