// Diagnostics for a `.wind` definition being edited as text: every problem `towpath validate`
// would report, placed on the token it is about, so a source editor can underline it. The messages
// are the engine's own (JSON decoder, schema validator, planning checks); this module only finds
// where they belong.
import { PlanningError } from '../errors.ts';
import { checkLayer, initialCheckState } from '../plan/checks.ts';
import { type Model, type TaggedUnion, windDefinitionModel } from './field-table.ts';
import { normaliseWindText } from './index.ts';
import { decodeJson, type JsonSpan, JsonSpans, JsonSyntaxError } from './json-decoder.ts';
import type { JsonObject, JsonValue } from './json-value.ts';
import { formatSchemaIssue } from './report.ts';
import type { WindDefinition } from './types.ts';
import { type SchemaIssue, type ValidationResult, validateWindDocument } from './validate.ts';

export type DiagnosticSeverity = 'error' | 'warning';

/** Which level found the problem (spec/winding.md: JSON §2.2, schema §2.3–2.7, planning §3). */
export type DiagnosticSource = 'JSON' | 'schema' | 'planning';

/** A problem at `from`…`to` (UTF-16 offsets into the text given, end exclusive). */
export interface WindDiagnostic {
  readonly from: number;
  readonly to: number;
  readonly severity: DiagnosticSeverity;
  readonly message: string;
  readonly source: DiagnosticSource;
}

/**
 * Everything wrong with `text`, in the order validate finds it. A JSON syntax error stops there (one
 * diagnostic, its message `{msg}: line {l} column {c} (char {p})` as in `Invalid JSON in {path}: …`);
 * each schema error's message is its two lines of the §2.7 report (`{loc}`, `  {msg} [type={type}]`);
 * planning checks 1–9 run for every layer, so each layer shows its own first failure — the first
 * of them is exactly what validate reports. Guards 10 and 11 need the program generated; place a
 * planner's message with `planningDiagnostic`.
 */
export function windDiagnostics(text: string): WindDiagnostic[] {
  const read = readText(text);
  const { source } = read;
  if ('syntax' in read) {
    const { syntax } = read;
    return [source.at(syntax.index, syntax.index + 1, 'JSON', syntax.describe(source.normalised))];
  }
  const { result, tree } = read;
  if (!result.ok) {
    return result.issues.map((issue) => {
      const span = tree.issue(issue);
      return source.at(span.from, span.to, 'schema', formatSchemaIssue(issue));
    });
  }
  const out: WindDiagnostic[] = [];
  const state = initialCheckState();
  result.value.layers.forEach((layer, index) => {
    try {
      checkLayer(index + 1, layer, result.value, state);
    } catch (error) {
      if (!(error instanceof PlanningError)) throw error;
      const span = tree.planning(index, error.message, result.value);
      out.push(source.at(span.from, span.to, 'planning', error.message));
    }
  });
  return out;
}

/**
 * Places a planner's `Layer {i}: …` message (e.g. guard 10 or 11, reported by the preview worker)
 * in `text`; null when the text does not validate or has no layer `i`.
 */
export function planningDiagnostic(text: string, message: string): WindDiagnostic | null {
  const layer = /^Layer (\d+): /.exec(message);
  if (!layer) return null;
  const read = readText(text);
  if ('syntax' in read || !read.result.ok) return null;
  const index = Number(layer[1]) - 1;
  if (index >= read.result.value.layers.length) return null;
  const span = read.tree.planning(index, message, read.result.value);
  return read.source.at(span.from, span.to, 'planning', message);
}

/** The text decoded (with where each value is) and validated, or its JSON syntax error. */
function readText(
  text: string,
):
  | { source: SourceText; syntax: JsonSyntaxError }
  | { source: SourceText; tree: Located; result: ValidationResult } {
  const source = new SourceText(text);
  const spans = new JsonSpans();
  let document: JsonValue;
  try {
    document = decodeJson(source.normalised, spans);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { source, syntax: error };
    throw error;
  }
  return { source, tree: new Located(document, spans), result: validateWindDocument(document) };
}

/** The text as given and as the engine reads it (§2.1), with offsets mapped back. */
class SourceText {
  readonly normalised: string;
  readonly #bom: number;
  /** Offsets in the normalised text of each LF that was a CRLF (its CR is gone). */
  readonly #crlf: number[] = [];

  constructor(text: string) {
    this.normalised = normaliseWindText(text);
    this.#bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    if (this.normalised.length + this.#bom === text.length) return;
    let removed = 0;
    for (let i = text.indexOf('\r\n'); i >= 0; i = text.indexOf('\r\n', i + 2)) {
      this.#crlf.push(i + 1 - this.#bom - ++removed);
    }
  }

  /** `index` in the normalised text → the same character in the text as given. */
  #original(index: number): number {
    let shift = this.#bom;
    for (const lf of this.#crlf) {
      if (lf > index) break;
      shift++;
    }
    return index + shift;
  }

  /** The position just after the normalised text's first `end` characters, in the text as given. */
  #after(end: number): number {
    return end === 0 ? this.#bom : this.#original(end - 1) + 1;
  }

  /**
   * A diagnostic over normalised `from…to`, at least one character long; at a line end or the end
   * of the text it is an empty point there (before a CRLF, not inside it).
   */
  at(from: number, to: number, source: DiagnosticSource, message: string): WindDiagnostic {
    const text = this.normalised;
    const point = from >= text.length || text[from] === '\n';
    const start = point ? this.#after(from) : this.#original(from);
    const stop = point ? start : this.#after(Math.max(to, from + 1));
    return { from: start, to: stop, severity: 'error', message, source };
  }
}

interface Node {
  readonly value: JsonValue;
  readonly span: JsonSpan;
  /** The key naming this value in its object, quotes included; null for the root and list items. */
  readonly key: JsonSpan | null;
}

/** A decoded document with where its values are, walked by the validator's locations. */
class Located {
  readonly #root: Node;
  readonly #spans: JsonSpans;

  constructor(document: JsonValue, spans: JsonSpans) {
    this.#root = { value: document, span: spans.root, key: null };
    this.#spans = spans;
  }

  #child(node: Node, step: string | number): Node | null {
    const { value } = node;
    if (Array.isArray(value) && typeof step === 'number') {
      const span = this.#spans.elements.get(value)?.[step];
      return span ? { value: value[step] as JsonValue, span, key: null } : null;
    }
    if (value instanceof Map && typeof step === 'string' && value.has(step)) {
      const member = this.#spans.members.get(value)?.get(step);
      if (!member) return null;
      const key = { from: member.keyFrom, to: member.keyTo };
      return { value: value.get(step) as JsonValue, span: member, key };
    }
    return null;
  }

  /**
   * Where a schema issue points: the value it names (see `#pointAt`: an object or list would
   * underline many lines). A field that is absent (`missing`, or a rule reported
   * at a key the input lacks) points at the object that should hold it: its key, or its `{`.
   */
  issue(issue: SchemaIssue): JsonSpan {
    let node = this.#root;
    const { loc } = issue;
    for (let k = 0; k < loc.length; k++) {
      const step = loc[k] as string | number;
      const next = this.#child(node, step);
      if (next === null) return node.key ?? { from: node.span.from, to: node.span.from + 1 };
      node = next;
      // The validator names a layer's variant after its index (`layers.0.helical.windAngle`);
      // it is not a key of the layer.
      if (typeof step === 'number' && next.value instanceof Map && typeof loc[k + 1] === 'string') k++;
    }
    return this.#pointAt(node);
  }

  /** A scalar's token; an object or list by its key, or by its opening bracket in a list. */
  #pointAt(node: Node): JsonSpan {
    if (!(node.value instanceof Map || Array.isArray(node.value))) return node.span;
    return node.key ?? { from: node.span.from, to: node.span.from + 1 };
  }

  /**
   * Where a planning failure of layer `index` (0-based) points: the field its text is about
   * (`windAngle`, `lockDegrees`, a mandrel or machine field, a dome), else the layer's `windType`
   * value.
   */
  planning(index: number, message: string, definition: WindDefinition): JsonSpan {
    const text = message.replace(/^Layer \d+: /, '');
    const model = windDefinitionModel();
    const layers = this.#member(this.#root, model, 'layers');
    const layer = layers && this.#child(layers, index);
    const union = unionOf(model, 'layers');
    if (!layer || !union) return this.#pointAt(this.#root);
    const word = planningFieldOf(text);
    const layerModel = union.variants.get(definition.layers[index]?.windType ?? '');
    const field = word === undefined || !layerModel ? null : this.#member(layer, layerModel, word);
    if (field) return this.#pointAt(field);
    // A field of a top-level object (mandrel, tow, machine) the text names.
    for (const section of model.fields) {
      if (word === undefined || section.kind !== 'model') continue;
      const node = this.#member(this.#root, model, section.name);
      const named = node && this.#member(node, section.model, word);
      if (named) return this.#pointAt(named);
    }
    const mandrelModel = modelOf(model, 'mandrelParameters');
    const mandrel = mandrelModel && this.#member(this.#root, model, 'mandrelParameters');
    if (mandrel && mandrelModel) {
      const dome = /^the (start|end) dome's|^the polar opening/.exec(text);
      const domesModel = modelOf(mandrelModel, 'domes');
      const domes = domesModel && this.#member(mandrel, mandrelModel, 'domes');
      if (dome && domes && domesModel) {
        const which = dome[1] === undefined ? null : this.#member(domes, domesModel, dome[1]);
        return this.#pointAt(which ?? this.#member(domes, domesModel, 'both') ?? domes);
      }
    }
    // The tag is read from its alias first (§2.4).
    const tag =
      (union.tagAlias === null ? null : this.#child(layer, union.tagAlias)) ?? this.#child(layer, union.tag);
    return this.#pointAt(tag ?? layer);
  }

  /** A model's field as the validator reads it: its camelCase key if present, else its alias. */
  #member(node: Node, model: Model, name: string): Node | null {
    const field = model.fields.find((candidate) => candidate.name === name);
    if (!field || !(node.value instanceof Map)) return null;
    const object: JsonObject = node.value;
    const key = object.has(field.name)
      ? field.name
      : field.alias !== null && object.has(field.alias)
        ? field.alias
        : null;
    return key === null ? null : this.#child(node, key);
  }
}

/**
 * The field a planning message (`Layer {i}: …` or its text) is about, by its camelCase key: the
 * word it starts with (`leadInMM (600.0mm) …`) or the phrase that names it; undefined for a
 * message about the whole layer.
 */
export function planningFieldOf(message: string): string | undefined {
  const text = message.replace(/^Layer \d+: /, '');
  return PHRASES.find(([phrase]) => phrase.test(text))?.[1] ?? /^([a-z][A-Za-z]*) /.exec(text)?.[1];
}

/** Planning texts that name their field in words rather than by its key. */
const PHRASES: readonly [RegExp, string][] = [
  [/^wind angle /, 'windAngle'],
  [/^computed circuit count /, 'patternNumber'],
];

function unionOf(model: Model, name: string): TaggedUnion | null {
  const field = model.fields.find((candidate) => candidate.name === name);
  return field?.kind === 'list' ? field.items : null;
}

function modelOf(model: Model, name: string): Model | null {
  const field = model.fields.find((candidate) => candidate.name === name);
  return field?.kind === 'model' ? field.model : null;
}
