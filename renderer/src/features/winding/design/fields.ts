// The design studio's forms, read from the engine's JSON Schema of the `.wind` format (generated
// from its zod schema): each field's key, alias, label, unit, description and range come from
// there, so the forms say what the validator checks and nothing is written twice.
import { windJsonSchema } from '#engine/wind/index.ts';

export type FieldType = 'number' | 'integer' | 'boolean' | 'string';

export interface FieldSpec {
  /** camelCase key. */
  key: string;
  /** snake_case alias the loader also reads (spec §2.4). */
  alias: string | null;
  title: string;
  unit: string | null;
  description: string;
  type: FieldType;
  required: boolean;
  /** The value must be > 0. */
  positive: boolean;
  /** The field also takes the word "auto": the planner chooses (schema 1.1's geodesic layer). */
  auto: boolean;
  /** The words a string field takes, when it takes only some (a dome's type). */
  choices: readonly string[] | null;
}

/** The models whose fields have forms: the document, the mandrel, the tow and the three layer kinds. */
export type FormModel =
  | 'WindDefinition'
  | 'MandrelParameters'
  | 'TowParameters'
  | 'Machine'
  | 'Dome'
  | LayerModel;
export type LayerModel = 'HoopLayer' | 'HelicalLayer' | 'SkipLayer' | 'GeodesicLayer';

type Node = Record<string, unknown>;

const schema = windJsonSchema() as { $defs: Record<string, Node> };

const isAuto = (option: Node) =>
  option.const === 'auto' || (Array.isArray(option.enum) && option.enum.join() === 'auto');

/** The node's one scalar type, and whether "auto" is also allowed beside it. */
function scalarOf(node: Node): { scalar: Node; auto: boolean } | null {
  if (typeof node.type === 'string') return { scalar: node, auto: false };
  // A nullable number (`carriageMin`) may be `type: [number, null]`.
  if (Array.isArray(node.type)) {
    const types = (node.type as string[]).filter((type) => type !== 'null');
    return types.length === 1 ? { scalar: { ...node, type: types[0] }, auto: false } : null;
  }
  // A nullable number (`endDiameter`) is `anyOf: [number, null]`; an auto-able one `anyOf: [number, "auto"]`.
  if (Array.isArray(node.anyOf)) {
    const all = (node.anyOf as Node[]).filter((option) => option.type !== 'null');
    const options = all.filter((option) => !isAuto(option));
    return options.length === 1 && typeof options[0]?.type === 'string'
      ? { scalar: options[0] as Node, auto: options.length < all.length }
      : null;
  }
  return null;
}

/** The fields of `model` that are numbers, whole numbers, flags or strings, in validation order. */
export function fieldsOf(model: FormModel): FieldSpec[] {
  const definition = schema.$defs[model];
  if (!definition) throw new Error(`the wind schema has no ${model}`);
  const required = new Set((definition.required as string[] | undefined) ?? []);
  const out: FieldSpec[] = [];
  for (const [key, raw] of Object.entries(definition.properties as Record<string, Node>)) {
    const found = scalarOf(raw);
    if (found === null) continue;
    const { scalar, auto } = found;
    if (raw.const !== undefined || scalar.const !== undefined) continue;
    const type = scalar.type as string;
    if (type !== 'number' && type !== 'integer' && type !== 'boolean' && type !== 'string') continue;
    out.push({
      key,
      alias: typeof raw['x-alias'] === 'string' ? raw['x-alias'] : null,
      title: typeof raw.title === 'string' ? raw.title : key,
      unit: typeof raw['x-unit'] === 'string' ? raw['x-unit'] : null,
      description: typeof raw.description === 'string' ? raw.description : '',
      type,
      required: required.has(key),
      positive: scalar.exclusiveMinimum === 0,
      auto,
      choices: Array.isArray(scalar.enum) ? (scalar.enum as string[]) : null,
    });
  }
  return out;
}

/** What a control is named: the label with its unit, "Diameter (mm)". */
export function fieldLabel(field: FieldSpec): string {
  return field.unit === null ? field.title : `${field.title} (${field.unit})`;
}

/** The range in words, shown with the description. */
export function fieldRange(field: FieldSpec): string | null {
  const or = field.auto ? ', or Auto' : '';
  if (field.type === 'integer') return `${field.positive ? 'a whole number above 0' : 'a whole number'}${or}`;
  if (field.type === 'number') return `${field.positive ? 'above 0' : 'any number'}${or}`;
  return null;
}

export const LAYER_MODELS: Record<string, LayerModel> = {
  hoop: 'HoopLayer',
  helical: 'HelicalLayer',
  skip: 'SkipLayer',
  geodesic: 'GeodesicLayer',
};

/** Every snake_case alias → its camelCase key, for reading the validator's locations. */
export const CAMEL_OF_ALIAS: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node as Node)) {
        if (value !== null && typeof value === 'object' && typeof (value as Node)['x-alias'] === 'string')
          map.set((value as Node)['x-alias'] as string, key);
        walk(value);
      }
    }
  };
  walk(schema);
  return map;
})();
