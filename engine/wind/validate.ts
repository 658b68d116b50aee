// Schema validation of a decoded `.wind` document (spec/winding.md §2.3–2.7), walking the field
// table compiled from the zod schema. Every problem is collected, in validation order, the way the
// reference implementation (pydantic) reported them.

import { pyrepr } from '../numeric.ts';
import type { CoercionError } from './coerce.ts';
import { CoercionFailure, coerceBoolean, coerceInteger, coerceNumber, coerceString } from './coerce.ts';
import type { Field, Model, ScalarField, TaggedUnion, TuplesField } from './field-table.ts';
import { windDefinitionModel } from './field-table.ts';
import type { JsonObject, JsonValue } from './json-value.ts';
import { pyJsonDumps } from './py-json.ts';
import type { WindDefinition } from './types.ts';

export interface SchemaIssue {
  /** Keys as found in the input (camelCase for absent fields), array indices, and layer tags. */
  readonly loc: readonly (string | number)[];
  readonly type: string;
  readonly msg: string;
}

const COERCION_MESSAGES: Record<CoercionError, string> = {
  finite_number: 'Input should be a finite number',
  float_parsing: 'Input should be a valid number, unable to parse string as a number',
  float_type: 'Input should be a valid number',
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  int_parsing_size: 'Unable to parse input string as an integer, exceeded maximum size',
  int_from_float: 'Input should be a valid integer, got a number with a fractional part',
  int_type: 'Input should be a valid integer',
  bool_parsing: 'Input should be a valid boolean, unable to interpret input',
  bool_type: 'Input should be a valid boolean',
  string_type: 'Input should be a valid string',
};

type Fields = Record<string, unknown>;

/** Marks a value that failed; its issue is already recorded. */
const INVALID: unique symbol = Symbol('invalid');

/** A check that runs once every field of a model validated cleanly (§2.6 cone version rule). */
type ModelRule = (
  value: Fields,
  keys: ReadonlyMap<string, string>,
  report: (key: string, msg: string) => void,
) => void;

/**
 * The first minor version whose definitions may describe a cone (`endDiameter` ≠ `diameter`) or a
 * vessel (`domes`).
 */
const CONE_MINOR_VERSION = 1;

const MODEL_RULES: Record<string, ModelRule> = {
  // A cone or a vessel changes what every layer lays down, so the file must say it is written for
  // a format that knows them: a 1.0 reader would ignore endDiameter and domes and wind a cylinder.
  WindDefinition(value, keys, report) {
    eyeClearsMandrel(value, keys, report);
    const mandrel = value.mandrelParameters as {
      diameter: number;
      endDiameter: number | null;
      domes: unknown;
    };
    const version = value.schemaVersion as string;
    if (Number(version.slice(version.indexOf('.') + 1)) >= CONE_MINOR_VERSION) return;
    const at = keys.get('schemaVersion') ?? 'schemaVersion';
    const end = mandrel.endDiameter;
    if (end !== null && end !== mandrel.diameter) {
      report(
        at,
        `Value error, endDiameter ${pyrepr(end)} differs from diameter ${pyrepr(mandrel.diameter)}, which describes a cone; cones need schemaVersion "1.1" or later (got "${version}")`,
      );
    } else if (mandrel.domes !== null) {
      report(
        at,
        `Value error, mandrelParameters.domes describes a pressure vessel; vessels need schemaVersion "1.1" or later (got "${version}")`,
      );
    }
  },
  // The domes close a cylinder; a cone with domes has no defined vessel geometry.
  MandrelParameters(value, keys, report) {
    const end = value.endDiameter as number | null;
    if (value.domes === null || end === null || end === value.diameter) return;
    report(
      keys.get('domes') ?? 'domes',
      `Value error, domes close a cylinder, but endDiameter ${pyrepr(end)} differs from diameter ${pyrepr(value.diameter as number)} (a cone)`,
    );
  },
  Machine(value, keys, report) {
    const low = value.carriageMin as number | null;
    const high = value.carriageMax as number | null;
    if (low !== null && high !== null && !(low < high))
      report(
        keys.get('carriageMax') ?? 'carriageMax',
        `Value error, carriageMin ${pyrepr(low)} is not below carriageMax ${pyrepr(high)}`,
      );
  },
  Domes(value, keys, report) {
    const given = (name: string) => value[name] !== null;
    if (given('both') && (given('start') || given('end'))) {
      report(
        keys.get('both') ?? 'both',
        'Value error, give either "both", or "start" and "end", not "both" with another dome',
      );
    } else if (!given('both')) {
      for (const name of ['start', 'end']) {
        if (!given(name))
          report(
            name,
            `Value error, a vessel needs a dome at each end: "${name}" is missing (or give "both")`,
          );
      }
    }
  },
  // The shape fields a dome type needs.
  Dome(value, keys, report) {
    if (value.type === 'ellipsoidal' && value.aspect === null)
      report('aspect', 'Value error, an ellipsoidal dome needs its aspect (height over the cylinder radius)');
    if (value.type === 'profile') {
      const points = value.points as unknown[] | null;
      if (points === null || points.length < 2)
        report(
          keys.get('points') ?? 'points',
          'Value error, a profile dome needs at least two [z, r] points',
        );
    }
  },
};

/**
 * The delivery eye runs on a line parallel to the axis: it must pass the widest part of the mandrel
 * (a profile dome may bulge past the cylinder) with the clearance asked for, whatever the layers.
 */
function eyeClearsMandrel(
  value: Fields,
  keys: ReadonlyMap<string, string>,
  report: (key: string, msg: string) => void,
): void {
  const machine = value.machine as { eyeRadius: number | null; eyeClearance: number } | null;
  if (machine === null || machine.eyeRadius === null) return;
  const mandrel = value.mandrelParameters as {
    diameter: number;
    endDiameter: number | null;
    domes: Record<string, { type: string; points: [number, number][] | null } | null> | null;
  };
  let widest = Math.max(mandrel.diameter, mandrel.endDiameter ?? 0) / 2;
  for (const dome of Object.values(mandrel.domes ?? {}))
    for (const [, r] of dome?.type === 'profile' ? (dome.points ?? []) : []) widest = Math.max(widest, r);
  if (machine.eyeRadius - machine.eyeClearance < widest)
    report(
      keys.get('machine') ?? 'machine',
      `Value error, the delivery eye (eyeRadius ${pyrepr(machine.eyeRadius)} mm) must clear the mandrel, whose widest radius is ${pyrepr(widest)} mm, by eyeClearance ${pyrepr(machine.eyeClearance)} mm`,
    );
}

class Validator {
  readonly issues: SchemaIssue[] = [];
  // The location of the value being validated; copied only when an issue is recorded.
  readonly #loc: (string | number)[] = [];
  readonly #patterns = new Map<string, RegExp>();

  #issue(type: string, msg: string, key?: string | number): void {
    const loc = key === undefined ? this.#loc.slice() : [...this.#loc, key];
    this.issues.push({ loc, type, msg });
  }

  #at<T>(key: string | number, run: () => T): T {
    this.#loc.push(key);
    try {
      return run();
    } finally {
      this.#loc.pop();
    }
  }

  model(model: Model, input: JsonValue): Fields | typeof INVALID {
    if (!(input instanceof Map)) {
      this.#issue('model_type', `Input should be a valid dictionary or instance of ${model.title}`);
      return INVALID;
    }
    const before = this.issues.length;
    const value: Fields = {};
    const keys = new Map<string, string>();
    for (const field of model.fields) {
      const key = lookup(input, field);
      if (key === undefined) {
        if (field.required) this.#issue('missing', 'Field required', field.name);
        else value[field.name] = field.kind === 'scalar' ? field.default : null;
        continue;
      }
      keys.set(field.name, key);
      const raw = input.get(key) as JsonValue;
      this.#loc.push(key);
      const result = this.field(field, raw);
      this.#loc.pop();
      if (result !== INVALID) value[field.name] = result;
    }
    if (this.issues.length !== before) return INVALID;
    MODEL_RULES[model.title]?.(value, keys, (key, msg) => this.#issue('value_error', msg, key));
    return this.issues.length === before ? value : INVALID;
  }

  field(field: Field, raw: JsonValue): unknown {
    switch (field.kind) {
      case 'literal':
        if (raw === field.value) return raw;
        this.#issue('literal_error', `Input should be '${field.value}'`);
        return INVALID;
      case 'model':
        return raw === null && field.nullable ? null : this.model(field.model, raw);
      case 'list':
        return this.list(field.items, raw);
      case 'tuples':
        return this.tuples(field, raw);
      case 'scalar':
        return this.scalar(field, raw);
    }
  }

  scalar(field: ScalarField, raw: JsonValue): unknown {
    if (raw === null && field.nullable) return null;
    if (field.keyword !== null && raw === field.keyword) return raw;
    const value =
      field.type === 'number'
        ? coerceNumber(raw)
        : field.type === 'integer'
          ? coerceInteger(raw)
          : field.type === 'boolean'
            ? coerceBoolean(raw)
            : coerceString(raw);
    if (value instanceof CoercionFailure) {
      this.#issue(value.type, COERCION_MESSAGES[value.type]);
      return INVALID;
    }
    if (field.positive && !((value as number) > 0)) {
      this.#issue('greater_than', 'Input should be greater than 0');
      return INVALID;
    }
    if (field.nonNegative && !((value as number) >= 0)) {
      this.#issue('greater_than_equal', 'Input should be greater than or equal to 0');
      return INVALID;
    }
    if (field.choices !== null && !field.choices.includes(value as string)) {
      const quoted = field.choices.map((choice) => `'${choice}'`);
      this.#issue('enum', `Input should be ${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`);
      return INVALID;
    }
    if (field.pattern !== null && !this.#pattern(field.pattern).test(value as string)) {
      this.#issue('string_pattern_mismatch', `String should match pattern '${field.pattern}'`);
      return INVALID;
    }
    return value;
  }

  /** A list of fixed-size lists of numbers. */
  tuples(field: TuplesField, raw: JsonValue): unknown {
    if (raw === null && field.nullable) return null;
    if (!Array.isArray(raw)) {
      this.#issue('list_type', 'Input should be a valid list');
      return INVALID;
    }
    const before = this.issues.length;
    const out: number[][] = [];
    raw.forEach((item, index) => {
      if (!Array.isArray(item)) {
        this.#issue('tuple_type', 'Input should be a valid tuple', index);
        return;
      }
      if (item.length !== field.size) {
        const [type, bound] = item.length < field.size ? ['too_short', 'least'] : ['too_long', 'most'];
        this.#issue(
          type,
          `Tuple should have at ${bound} ${field.size} items after validation, not ${item.length}`,
          index,
        );
        return;
      }
      out.push(
        item.map((element, j) => {
          const number = coerceNumber(element as JsonValue);
          if (!(number instanceof CoercionFailure)) return number;
          this.#at(index, () => this.#issue(number.type, COERCION_MESSAGES[number.type], j));
          return Number.NaN;
        }),
      );
    });
    return this.issues.length === before ? out : INVALID;
  }

  #pattern(source: string): RegExp {
    let pattern = this.#patterns.get(source);
    if (!pattern) {
      pattern = new RegExp(source);
      this.#patterns.set(source, pattern);
    }
    return pattern;
  }

  list(union: TaggedUnion, raw: JsonValue): unknown {
    if (!Array.isArray(raw)) {
      this.#issue('list_type', 'Input should be a valid list');
      return INVALID;
    }
    const before = this.issues.length;
    const discriminator = union.tagAlias === null ? `'${union.tag}'` : `'${union.tagAlias}' | '${union.tag}'`;
    const items: unknown[] = new Array(raw.length);
    for (let index = 0; index < raw.length; index++) {
      this.#loc.push(index);
      items[index] = this.variant(union, raw[index] as JsonValue, discriminator);
      this.#loc.pop();
    }
    return this.issues.length === before ? items : INVALID;
  }

  variant(union: TaggedUnion, item: JsonValue, discriminator: string): unknown {
    if (!(item instanceof Map)) {
      this.#issue(
        'model_attributes_type',
        'Input should be a valid dictionary or object to extract fields from',
      );
      return INVALID;
    }
    // The tag is the one place where the alias is read first (§2.4).
    const tagKey =
      union.tagAlias !== null && item.has(union.tagAlias)
        ? union.tagAlias
        : item.has(union.tag)
          ? union.tag
          : null;
    if (tagKey === null) {
      this.#issue('union_tag_not_found', `Unable to extract tag using discriminator ${discriminator}`);
      return INVALID;
    }
    const tag = item.get(tagKey) as JsonValue;
    const model = typeof tag === 'string' ? union.variants.get(tag) : undefined;
    if (model === undefined) {
      const shown = typeof tag === 'string' ? tag : pyJsonDumps(tag);
      const expected = [...union.variants.keys()].map((name) => `'${name}'`).join(', ');
      this.#issue(
        'union_tag_invalid',
        `Input tag '${shown}' found using ${discriminator} does not match any of the expected tags: ${expected}`,
      );
      return INVALID;
    }
    return this.#at(tag as string, () => this.model(model, item));
  }
}

function lookup(input: JsonObject, field: Field): string | undefined {
  if (input.has(field.name)) return field.name;
  if (field.alias !== null && input.has(field.alias)) return field.alias;
  return undefined;
}

export type ValidationResult = { ok: true; value: WindDefinition } | { ok: false; issues: SchemaIssue[] };

/** Validates and coerces a decoded document into the planner's `WindDefinition`. */
export function validateWindDocument(document: JsonValue): ValidationResult {
  const validator = new Validator();
  const value = validator.model(windDefinitionModel(), document);
  if (value === INVALID) return { ok: false, issues: validator.issues };
  // The field table is compiled from the zod schema whose output type is WindDefinition.
  return { ok: true, value: value as unknown as WindDefinition };
}
