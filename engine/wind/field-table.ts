// Compiles the generated JSON Schema into the table the lax validator walks: per model, its fields
// in validation order with their snake_case alias, target type, default and constraints. Only the
// JSON Schema constructs the `.wind` schema uses are understood; anything else is a programming
// error caught by the tests at load time.
import { windJsonSchema } from './json-schema.ts';

export type ScalarType = 'number' | 'integer' | 'boolean' | 'string';

interface FieldBase {
  readonly name: string;
  readonly alias: string | null;
  readonly required: boolean;
}

export interface ScalarField extends FieldBase {
  readonly kind: 'scalar';
  readonly type: ScalarType;
  readonly nullable: boolean;
  readonly default: string | number | boolean | null;
  /** Value must be > 0 (JSON Schema `exclusiveMinimum: 0`). */
  readonly positive: boolean;
  /** Value must be ≥ 0 (JSON Schema `minimum: 0`). */
  readonly nonNegative: boolean;
  /** Source of the pattern a string must match, as shown in messages. */
  readonly pattern: string | null;
  /** The values a string may take (JSON Schema `enum`), or null for any. */
  readonly choices: readonly string[] | null;
  /** A word accepted as is in place of the value (`"auto"`), or null. */
  readonly keyword: string | null;
}

export interface LiteralField extends FieldBase {
  readonly kind: 'literal';
  readonly value: string;
}

export interface ModelField extends FieldBase {
  readonly kind: 'model';
  readonly model: Model;
  readonly nullable: boolean;
}

/** A list of fixed-size lists of numbers (`[[z, r], …]`), possibly null. */
export interface TuplesField extends FieldBase {
  readonly kind: 'tuples';
  readonly size: number;
  readonly nullable: boolean;
}

export interface ListField extends FieldBase {
  readonly kind: 'list';
  readonly items: TaggedUnion;
}

export type Field = ScalarField | LiteralField | ModelField | ListField | TuplesField;

export interface Model {
  readonly title: string;
  readonly fields: readonly Field[];
}

export interface TaggedUnion {
  readonly tag: string;
  readonly tagAlias: string | null;
  /** Variants by tag value, in declaration order. */
  readonly variants: ReadonlyMap<string, Model>;
}

type Node = Record<string, unknown>;

function asNode(value: unknown, where: string): Node {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`wind schema: expected an object at ${where}`);
  return value as Node;
}

class Compiler {
  readonly #defs: Node;
  readonly #models = new Map<string, Model>();

  constructor(root: Node) {
    this.#defs = asNode(root.$defs, '$defs');
  }

  resolve(node: Node): Node {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    const name = ref.replace('#/$defs/', '');
    return asNode(this.#defs[name], ref);
  }

  model(node: Node): Model {
    const target = this.resolve(node);
    const title = target.title;
    if (typeof title !== 'string') throw new Error('wind schema: a model needs a title');
    const known = this.#models.get(title);
    if (known) return known;
    const properties = asNode(target.properties, `${title}.properties`);
    const required = new Set(Array.isArray(target.required) ? target.required : []);
    const fields = Object.entries(properties).map(([name, raw]) =>
      this.field(name, asNode(raw, `${title}.${name}`), required.has(name)),
    );
    const model = { title, fields };
    this.#models.set(title, model);
    return model;
  }

  field(name: string, node: Node, required: boolean): Field {
    const alias = typeof node['x-alias'] === 'string' ? node['x-alias'] : null;
    const base = { name, alias, required };
    if (typeof node.const === 'string') return { ...base, kind: 'literal', value: node.const };
    let nullable = false;
    let keyword: string | null = null;
    let target = this.resolve(node);
    if (Array.isArray(target.anyOf)) {
      const options = target.anyOf.map((option, i) => asNode(option, `${name}.anyOf.${i}`));
      const words = options.filter((option) => typeof option.const === 'string');
      const others = options.filter((option) => option.type !== 'null' && !words.includes(option));
      nullable = options.some((option) => option.type === 'null');
      keyword = (words[0]?.const as string | undefined) ?? null;
      if (others.length !== 1 || words.length > 1)
        throw new Error(`wind schema: unsupported anyOf at ${name}`);
      target = this.resolve(others[0] as Node);
    }
    if (target.type === 'object') return { ...base, kind: 'model', model: this.model(target), nullable };
    if (target.type === 'array') {
      const items = asNode(target.items, name);
      if (items.type === 'array' && Array.isArray(items.prefixItems)) {
        if (!items.prefixItems.every((item) => asNode(item, name).type === 'number'))
          throw new Error(`wind schema: unsupported tuple at ${name}`);
        return { ...base, kind: 'tuples', size: items.prefixItems.length, nullable };
      }
      return { ...base, kind: 'list', items: this.union(items) };
    }
    const scalar = target;
    // zod writes a nullable number without bounds as `type: ["number", "null"]`.
    let type = scalar.type;
    if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
      nullable = true;
      type = type.find((option) => option !== 'null');
    }
    if (type !== 'number' && type !== 'integer' && type !== 'boolean' && type !== 'string')
      throw new Error(`wind schema: unsupported type at ${name}`);
    const fallback = node.default ?? null;
    if (
      fallback !== null &&
      typeof fallback !== 'string' &&
      typeof fallback !== 'number' &&
      typeof fallback !== 'boolean'
    )
      throw new Error(`wind schema: unsupported default at ${name}`);
    return {
      ...base,
      kind: 'scalar',
      type,
      nullable,
      default: fallback,
      positive: scalar.exclusiveMinimum === 0,
      nonNegative: scalar.minimum === 0,
      pattern: typeof scalar.pattern === 'string' ? scalar.pattern : null,
      choices: Array.isArray(scalar.enum) ? scalar.enum.map(String) : null,
      keyword,
    };
  }

  union(node: Node): TaggedUnion {
    if (!Array.isArray(node.oneOf)) throw new Error('wind schema: list items must be a tagged union');
    const models = node.oneOf.map((option, i) => this.model(asNode(option, `oneOf.${i}`)));
    const first = models[0]?.fields.find((field) => field.kind === 'literal');
    if (!first) throw new Error('wind schema: tagged union without a literal tag');
    const variants = new Map<string, Model>();
    for (const model of models) {
      const tag = model.fields.find((field) => field.kind === 'literal' && field.name === first.name);
      if (tag?.kind !== 'literal') throw new Error(`wind schema: ${model.title} has no tag`);
      variants.set(tag.value, model);
    }
    return { tag: first.name, tagAlias: first.alias, variants };
  }
}

let cached: Model | undefined;

/** The WindDefinition model, compiled once from the generated JSON Schema. */
export function windDefinitionModel(): Model {
  if (!cached) {
    const root = windJsonSchema();
    const compiler = new Compiler(root);
    cached = compiler.model(compiler.resolve(root));
  }
  return cached;
}
