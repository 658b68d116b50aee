// The JSON Schema document of the `.wind` format, generated from the zod schema. It is checked in
// as resources/schemas/wind.schema.json (a test keeps the two equal) and is also what the loader's
// field table is compiled from, so the document and the validator cannot drift apart.
import { z } from 'zod';
import { WindDefinitionSchema } from './schema.ts';

export const WIND_SCHEMA_ID = 'https://towpath.local/schemas/wind.schema.json';

/** The JSON Schema (draft 2020-12) of the accepted document; defaulted fields are optional. */
export function windJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(WindDefinitionSchema, { target: 'draft-2020-12', io: 'input' });
  const { $schema, ...rest } = generated;
  return { $schema, $id: WIND_SCHEMA_ID, title: 'Towpath .wind definition', ...rest };
}

const LINE_WIDTH = 110;

// JSON.stringify layout, except that arrays of scalars sit on one line when they fit: that is
// how the repository's formatter (Biome) lays JSON out, so `biome check` leaves the file alone.
function layout(value: unknown, indent: string, lineStart: number, trailing: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((item) => item === null || typeof item !== 'object')) {
      const inline = `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
      if (lineStart + inline.length + trailing <= LINE_WIDTH) return inline;
    }
    const inner = `${indent}  `;
    const items = value.map(
      (item, i) => `${inner}${layout(item, inner, inner.length, i < value.length - 1 ? 1 : 0)}`,
    );
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const members = entries.map(([key, member], i) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return `${head}${layout(member, inner, head.length, i < entries.length - 1 ? 1 : 0)}`;
    });
    return `{\n${members.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** The exact text of resources/schemas/wind.schema.json. */
export function renderWindJsonSchema(): string {
  return `${layout(windJsonSchema(), '', 0, 0)}\n`;
}
