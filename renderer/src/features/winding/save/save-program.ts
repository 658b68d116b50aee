// "Save G-code" and "Save definition": in the desktop app through the native save dialog (the
// typed preload API), the bytes written in pieces straight from a Blob; in a browser as a
// download. A program stays a Blob on the page — never one big string — whichever way it goes.
import type { TowpathDesktopApi } from '../../../lib/desktop.ts';
import { downloadBlob } from '../../../ui/download.ts';

/** Bytes per writeFile call: well under the preload API's limit, and small enough to keep memory flat. */
export const SAVE_PIECE_BYTES = 4 * 1024 * 1024;

export type SaveOutcome =
  | { kind: 'saved'; path: string }
  | { kind: 'downloaded'; name: string }
  | { kind: 'canceled' };

/** The file name a program's G-code is offered under: `part.wind` → `part.gcode`; G-code keeps its name. */
export function gcodeName(name: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith('.wind')) return `${name.slice(0, -5)}.gcode`;
  return /\.(gcode|nc|ngc|g)$/.test(lower) ? name : `${name}.gcode`;
}

/**
 * Saves a G-code program or (`kind` 'wind') a definition; a definition's `current` path is saved
 * over without a dialog when the desktop app allows it (one the operator opened or saved).
 */
export async function saveProgram(
  blob: Blob,
  name: string,
  desktop: TowpathDesktopApi | undefined,
  { kind = 'gcode', current }: { kind?: 'gcode' | 'wind'; current?: string } = {},
): Promise<SaveOutcome> {
  const writeFile = desktop?.writeFile;
  if (!desktop || !writeFile) {
    downloadBlob(blob, name);
    return { kind: 'downloaded', name };
  }
  const chosen = await desktop.saveFile({
    kind,
    suggestedPath: name,
    ...(current === undefined ? {} : { current }),
  });
  if (chosen.canceled) return { kind: 'canceled' };
  let offset = 0;
  do {
    const piece = new Uint8Array(await blob.slice(offset, offset + SAVE_PIECE_BYTES).arrayBuffer());
    const last = offset + piece.length >= blob.size;
    await writeFile(chosen.path, piece, { offset, last });
    offset += piece.length;
  } while (offset < blob.size);
  return { kind: 'saved', path: chosen.path };
}

/** What the page says after a save. */
export function describeSave(outcome: SaveOutcome): string | null {
  if (outcome.kind === 'saved') return `Saved to ${outcome.path}`;
  if (outcome.kind === 'downloaded') return `Downloaded ${outcome.name}`;
  return null;
}
