// The one working copy of the design studio: the definition's text, what it was when last opened
// or saved, and the undo and redo history. Forms and the Source tab both edit it through this
// reducer, so one history covers every edit. A form edit decodes the text, changes the document
// and writes it back; until then the text is the file's own, byte for byte.
import {
  decodeDefinition,
  editLayers,
  encodeDefinition,
  type JsonValue,
  type LayerEdit,
  layersOf,
  memberOf,
  type PathStep,
  type Place,
  setAt,
  setField,
} from './document.ts';

export interface WorkingCopy {
  /** File name shown and offered when saving. */
  name: string;
  /** Where the desktop app last opened or saved it; null in a browser or before the first save. */
  path: string | null;
  text: string;
  /** The text as last opened or saved: the copy is dirty when `text` differs. */
  savedText: string;
  /** The file's bytes as opened, written back when the text is unchanged (same bytes, BOM and all). */
  savedBytes: Uint8Array | null;
  /** Earlier texts, newest last. */
  past: string[];
  /** Undone texts, next redo last. */
  future: string[];
  /** The field the last edit typed into: more typing there soon after joins the same undo step. */
  typing: string | null;
  /** When that edit was made (ms). */
  typedAt: number;
}

export type FormEdit =
  | {
      kind: 'field';
      place: Place;
      field: { key: string; alias: string | null };
      value: JsonValue | undefined;
    }
  | { kind: 'layers'; edit: LayerEdit }
  /** A value deeper than a section (a dome's field, or the domes themselves); undefined removes it. */
  | { kind: 'path'; path: readonly PathStep[]; value: JsonValue | undefined };

export type WorkingCopyAction =
  | { type: 'load'; name: string; path: string | null; text: string; bytes: Uint8Array | null }
  | { type: 'edit'; edit: FormEdit; typing?: string; at?: number }
  | { type: 'source'; text: string; at?: number }
  | { type: 'undo' }
  | { type: 'redo' }
  /** `text` is what was written: edits made while the save ran stay unsaved. */
  | { type: 'saved'; name: string; path: string | null; text: string };

/** How many steps back undo reaches: enough for a session, bounded in memory. */
export const UNDO_LIMIT = 500;

/** Typing in one field with pauses shorter than this is one undo step; a longer pause starts another. */
export const TYPING_PAUSE_MS = 1000;

export function loadedCopy(
  name: string,
  text: string,
  path: string | null = null,
  bytes: Uint8Array | null = null,
): WorkingCopy {
  return {
    name,
    path,
    text,
    savedText: text,
    savedBytes: bytes,
    past: [],
    future: [],
    typing: null,
    typedAt: 0,
  };
}

export function isDirty(copy: WorkingCopy): boolean {
  return copy.text !== copy.savedText;
}

/** What a save writes: the opened bytes while the text is theirs, else the text as UTF-8. */
export function bytesToSave(copy: WorkingCopy): Uint8Array {
  if (copy.savedBytes !== null && copy.text === copy.savedText) return copy.savedBytes;
  return new TextEncoder().encode(copy.text);
}

function changed(copy: WorkingCopy, text: string, typing: string | null, at = 0): WorkingCopy {
  if (text === copy.text) return copy;
  const joins =
    typing !== null && typing === copy.typing && at - copy.typedAt < TYPING_PAUSE_MS && copy.past.length > 0;
  const past = joins ? copy.past : [...copy.past, copy.text].slice(-UNDO_LIMIT);
  return { ...copy, text, past, future: [], typing, typedAt: at };
}

/** Whether the document uses what schema 1.1 brought: a cone, domes, a geodesic layer or the machine section. */
export function usesVersion11(document: JsonValue): boolean {
  const mandrel = memberOf(document, 'mandrelParameters', 'mandrel_parameters');
  const given = (value: JsonValue | undefined) => value !== undefined && value !== null;
  return (
    given(memberOf(mandrel, 'endDiameter', 'end_diameter')) ||
    given(memberOf(mandrel, 'domes', null)) ||
    given(memberOf(document, 'machine', null)) ||
    layersOf(document).some((layer) => memberOf(layer, 'windType', 'wind_type') === 'geodesic')
  );
}

const VERSION = { key: 'schemaVersion', alias: 'schema_version' };

/**
 * A form edit that brings in a 1.1 feature to a 1.0 definition also declares 1.1: the spec requires
 * a cone or a vessel to, and a 1.0 reader would wind a cylinder. Doing it in the same edit keeps
 * it one undo step, and undoing the feature takes the version back with it.
 */
function declareVersion(before: JsonValue, after: JsonValue): JsonValue {
  if (usesVersion11(before) || !usesVersion11(after)) return after;
  const version = memberOf(after, VERSION.key, VERSION.alias);
  if (version !== undefined && version !== '1.0') return after;
  if (version !== undefined || !(after instanceof Map)) return setField(after, [], VERSION, '1.1');
  // Absent means 1.0: the version goes first, where the reference's files have it.
  return new Map([[VERSION.key, '1.1'], ...after]);
}

export function applyFormEdit(text: string, edit: FormEdit): string | null {
  const decoded = decodeDefinition(text);
  // A form cannot edit text that is not JSON: the Source tab shows why, and fixing it there comes first.
  if (!decoded.ok) return null;
  const next =
    edit.kind === 'field'
      ? setField(decoded.value, edit.place, edit.field, edit.value)
      : edit.kind === 'path'
        ? setAt(decoded.value, edit.path, edit.value)
        : editLayers(decoded.value, edit.edit);
  return encodeDefinition(declareVersion(decoded.value, next));
}

export function workingCopyReducer(copy: WorkingCopy | null, action: WorkingCopyAction): WorkingCopy | null {
  if (action.type === 'load') return loadedCopy(action.name, action.text, action.path, action.bytes);
  if (copy === null) return null;
  switch (action.type) {
    case 'edit': {
      const text = applyFormEdit(copy.text, action.edit);
      return text === null ? copy : changed(copy, text, action.typing ?? null, action.at);
    }
    case 'source':
      return changed(copy, action.text, 'source', action.at);
    case 'undo': {
      const previous = copy.past.at(-1);
      if (previous === undefined) return copy;
      return {
        ...copy,
        text: previous,
        past: copy.past.slice(0, -1),
        future: [...copy.future, copy.text],
        typing: null,
      };
    }
    case 'redo': {
      const next = copy.future.at(-1);
      if (next === undefined) return copy;
      return {
        ...copy,
        text: next,
        past: [...copy.past, copy.text],
        future: copy.future.slice(0, -1),
        typing: null,
      };
    }
    case 'saved':
      return {
        ...copy,
        name: action.name,
        path: action.path,
        savedText: action.text,
        savedBytes: action.text === copy.savedText ? copy.savedBytes : null,
        typing: null,
      };
  }
}
