// What is wrong with the working copy, placed on the form field or layer it concerns: the JSON
// decoder's message, the schema validator's messages (spec §2.7, each at its field) and the
// planning checks 1–9 of §3 (each layer its own first failure, at the field its text names). The
// messages are the engine's own, word for word.

import { PlanningError } from '#engine/errors.ts';
import { checkLayer, initialCheckState } from '#engine/plan/checks.ts';
import { planningFieldOf } from '#engine/wind/diagnostics.ts';
import { formatSchemaReport } from '#engine/wind/report.ts';
import type { HelicalLayer, MandrelParameters, TowParameters, WindDefinition } from '#engine/wind/types.ts';
import { type SchemaIssue, validateWindDocument } from '#engine/wind/validate.ts';
import { decodeDefinition, type JsonValue } from './document.ts';
import { CAMEL_OF_ALIAS } from './fields.ts';

export interface LayerProblem {
  /** The planner's message, `Layer {i}: …`. */
  message: string;
  /** The field it is about (camelCase), or null when it concerns the whole layer. */
  field: string | null;
}

export interface Analysis {
  document: JsonValue | null;
  /** The JSON decoder's message when the text is not JSON. */
  jsonError: string | null;
  /** Schema messages by field id: `defaultFeedRate`, `mandrelParameters.diameter`, `layers.0.windAngle`, `layers.0`. */
  fieldErrors: ReadonlyMap<string, string[]>;
  /** The whole §2.7 report, when the schema fails. */
  schemaReport: string | null;
  /** The validated definition, when the schema passes. */
  definition: WindDefinition | null;
  /** Planning check failures by layer index (0-based). */
  planning: ReadonlyMap<number, LayerProblem>;
}

/** The form's id of a validator location (keys as camelCase, the layer's tag dropped). */
export function fieldIdOf(loc: SchemaIssue['loc']): string {
  const parts: string[] = [];
  for (let k = 0; k < loc.length; k++) {
    const step = loc[k];
    if (typeof step === 'number') {
      parts.push(String(step));
      // `layers.0.helical.windAngle`: the variant's name follows the index.
      if (parts.length === 2 && parts[0] === 'layers' && k + 2 < loc.length) k++;
    } else if (step !== undefined) parts.push(CAMEL_OF_ALIAS.get(step) ?? step);
  }
  return parts.join('.');
}

export function analyse(text: string, name: string): Analysis {
  const decoded = decodeDefinition(text);
  if (!decoded.ok) {
    return {
      document: null,
      jsonError: `Invalid JSON in ${name}: ${decoded.message}`,
      fieldErrors: new Map(),
      schemaReport: null,
      definition: null,
      planning: new Map(),
    };
  }
  const result = validateWindDocument(decoded.value);
  if (!result.ok) {
    const fieldErrors = new Map<string, string[]>();
    for (const issue of result.issues) {
      const id = fieldIdOf(issue.loc);
      fieldErrors.set(id, [...(fieldErrors.get(id) ?? []), issue.msg]);
    }
    return {
      document: decoded.value,
      jsonError: null,
      fieldErrors,
      schemaReport: formatSchemaReport(name, result.issues),
      definition: null,
      planning: new Map(),
    };
  }
  const definition = result.value;
  const planning = new Map<number, LayerProblem>();
  const state = initialCheckState();
  definition.layers.forEach((layer, index) => {
    try {
      checkLayer(index + 1, layer, definition, state);
    } catch (error) {
      if (!(error instanceof PlanningError)) throw error;
      const field = planningFieldOf(error.message) ?? null;
      planning.set(index, { message: error.message, field: field !== null && field in layer ? field : null });
    }
  });
  return {
    document: decoded.value,
    jsonError: null,
    fieldErrors: new Map(),
    schemaReport: null,
    definition,
    planning,
  };
}

/** What a helical layer's hint needs, when the document validates. */
export interface HelicalContext {
  layer: HelicalLayer;
  mandrel: MandrelParameters;
  tow: TowParameters;
}

export function helicalContext(analysis: Analysis, index: number): HelicalContext | null {
  const definition = analysis.definition;
  const layer = definition?.layers[index];
  if (!definition || layer?.windType !== 'helical') return null;
  return { layer, mandrel: definition.mandrelParameters, tow: definition.towParameters };
}
