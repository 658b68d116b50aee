// The definition being designed as a decoded JSON document (the engine's JsonValue: objects are
// Maps, so every key the engine does not know stays where it was), and the edits the forms make to
// it. Every edit returns a new document; the ones it does not touch are shared.
import { normaliseWindText } from '#engine/wind/index.ts';
import { decodeJson, JsonSyntaxError } from '#engine/wind/json-decoder.ts';
import { JsonNumber, type JsonObject, type JsonValue } from '#engine/wind/json-value.ts';
import { pyJsonDumpsIndented } from '#engine/wind/py-json.ts';

/** The text as the engine reads it, decoded; or the decoder's message. */
export function decodeDefinition(
  text: string,
): { ok: true; value: JsonValue } | { ok: false; message: string } {
  const normalised = normaliseWindText(text);
  try {
    return { ok: true, value: decodeJson(normalised) };
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, message: error.describe(normalised) };
    throw error;
  }
}

/** How an edited definition is written: the layout of the reference's own files (Python's indent=2). */
export function encodeDefinition(value: JsonValue): string {
  return `${pyJsonDumpsIndented(value)}\n`;
}

/** A key of an object as the loader reads it (spec §2.4): camelCase if present, else the alias. */
export function keyIn(object: JsonObject, key: string, alias: string | null): string {
  if (object.has(key)) return key;
  if (alias !== null && object.has(alias)) return alias;
  return key;
}

export function memberOf(
  object: JsonValue | undefined,
  key: string,
  alias: string | null,
): JsonValue | undefined {
  if (!(object instanceof Map)) return undefined;
  return object.get(keyIn(object, key, alias));
}

/** Where an edited field lives: top level (`[]`), a section (`['mandrelParameters']`), or a layer. */
export type Place = readonly [] | readonly [section: string] | readonly ['layers', number];

/** The snake_case names of the sections the loader also reads. */
const SECTION_ALIASES: Record<string, string> = {
  mandrelParameters: 'mandrel_parameters',
  towParameters: 'tow_parameters',
  layers: 'layers',
};

function asObject(value: JsonValue | undefined): JsonObject {
  return value instanceof Map ? new Map(value) : new Map();
}

/** The document with one field of `place` set, or removed when `value` is undefined. */
export function setField(
  document: JsonValue,
  place: Place,
  field: { key: string; alias: string | null },
  value: JsonValue | undefined,
): JsonValue {
  const update = (object: JsonObject): JsonObject => {
    const next = new Map(object);
    const key = keyIn(object, field.key, field.alias);
    if (value === undefined) next.delete(key);
    else next.set(key, value);
    return next;
  };
  const root = asObject(document);
  if (place.length === 0) return update(root);
  const sectionKey = keyIn(root, place[0], SECTION_ALIASES[place[0]] ?? null);
  if (place.length === 1) {
    root.set(sectionKey, update(asObject(root.get(sectionKey))));
    return root;
  }
  const layers = root.get(sectionKey);
  if (!Array.isArray(layers) || !(layers[place[1]] instanceof Map)) return document;
  const copy = [...layers];
  copy[place[1]] = update(layers[place[1]] as JsonObject);
  root.set(sectionKey, copy);
  return root;
}

/** One step of a path into the document: a key and the snake_case alias the loader also reads. */
export interface PathStep {
  key: string;
  alias: string | null;
}

/**
 * The document with the value at `path` set, or removed when `value` is undefined: objects on the
 * way that are missing or null become empty ones, so a form can fill a section (a dome) that is
 * not there yet. Only objects are walked; layers are edited by `setField`.
 */
export function setAt(
  document: JsonValue,
  path: readonly PathStep[],
  value: JsonValue | undefined,
): JsonValue {
  const set = (node: JsonValue | undefined, depth: number): JsonValue | undefined => {
    const step = path[depth];
    if (step === undefined) return value;
    const object = asObject(node);
    const key = keyIn(object, step.key, step.alias);
    const next = set(object.get(key), depth + 1);
    if (next === undefined) object.delete(key);
    else object.set(key, next);
    return object;
  };
  return set(document, 0) ?? document;
}

/** The layer list of a document (empty when it has none or it is not a list). */
export function layersOf(document: JsonValue | undefined): JsonValue[] {
  const layers = memberOf(document, 'layers', null);
  return Array.isArray(layers) ? layers : [];
}

function withLayers(document: JsonValue, edit: (layers: JsonValue[]) => JsonValue[]): JsonValue {
  const root = asObject(document);
  const key = keyIn(root, 'layers', null);
  const layers = root.get(key);
  root.set(key, edit(Array.isArray(layers) ? [...layers] : []));
  return root;
}

export type LayerEdit =
  | { kind: 'add'; layer: JsonObject }
  | { kind: 'duplicate'; index: number }
  | { kind: 'delete'; index: number }
  | { kind: 'move'; from: number; to: number };

export function editLayers(document: JsonValue, edit: LayerEdit): JsonValue {
  return withLayers(document, (layers) => {
    switch (edit.kind) {
      case 'add':
        layers.push(edit.layer);
        break;
      case 'duplicate': {
        const layer = layers[edit.index];
        // A deep copy: the two layers are edited apart from now on.
        if (layer !== undefined) layers.splice(edit.index + 1, 0, copyValue(layer));
        break;
      }
      case 'delete':
        layers.splice(edit.index, 1);
        break;
      case 'move': {
        if (edit.to < 0 || edit.to >= layers.length || edit.from === edit.to) break;
        const [layer] = layers.splice(edit.from, 1);
        if (layer !== undefined) layers.splice(edit.to, 0, layer);
        break;
      }
    }
    return layers;
  });
}

function copyValue(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(copyValue);
  if (value instanceof Map) return new Map([...value].map(([key, member]) => [key, copyValue(member)]));
  return value;
}

/** A JSON number for a form's text: whole-number fields as integers, others as floats (`70.0`). */
export function numberValue(text: string, integer: boolean): JsonNumber | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return undefined;
  if (integer && Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER)
    return new JsonNumber(value, String(value === 0 ? 0 : value));
  return new JsonNumber(value, null);
}

/** A form's view of a value: numbers as their value, strings as they are, anything else as nothing. */
export function numericOf(value: JsonValue | undefined): number | null {
  if (value instanceof JsonNumber) return value.value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

export type { JsonObject, JsonValue };
export { JsonNumber };
