import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { windDefinitionModel } from './field-table.ts';
import { renderWindJsonSchema, windJsonSchema } from './json-schema.ts';
import type { WindDefinitionSchema } from './schema.ts';
import type { WindDefinition } from './types.ts';

const CHECKED_IN = new URL('../../resources/schemas/wind.schema.json', import.meta.url);

describe('wind.schema.json', () => {
  // To refresh the checked-in file after changing schema.ts:
  //   vitest run -u engine/wind/json-schema.test.ts
  it('is what the zod schema generates', async () => {
    await expect(renderWindJsonSchema()).toMatchFileSnapshot(CHECKED_IN.pathname);
    expect(readFileSync(CHECKED_IN, 'utf8')).toBe(renderWindJsonSchema());
  });

  it('renders the generated document without changing it', () => {
    expect(JSON.parse(renderWindJsonSchema())).toEqual(windJsonSchema());
    expect(renderWindJsonSchema()).toContain('"required": ["diameter", "windLength"],');
  });

  it('describes camelCase keys with their snake_case aliases', () => {
    const schema = windJsonSchema() as {
      $defs: Record<string, { properties: Record<string, { 'x-alias'?: string }> }>;
    };
    expect(schema.$defs.MandrelParameters?.properties.windLength?.['x-alias']).toBe('wind_length');
    expect(schema.$defs.HelicalLayer?.properties.leadInMM?.['x-alias']).toBe('lead_in_mm');
    expect(schema.$defs.WindDefinition?.properties.defaultFeedRate?.['x-alias']).toBe('default_feed_rate');
  });
});

describe('field table compiled from the schema', () => {
  it('lists the fields in the validation order of spec §2.3', () => {
    const model = windDefinitionModel();
    expect(model.fields.map((f) => f.name)).toEqual([
      'schemaVersion',
      'layers',
      'mandrelParameters',
      'towParameters',
      'defaultFeedRate',
      'machine',
    ]);
    const layers = model.fields[1];
    if (layers?.kind !== 'list') throw new Error('layers is not a list');
    expect(layers.items.tag).toBe('windType');
    expect(layers.items.tagAlias).toBe('wind_type');
    expect([...layers.items.variants.keys()]).toEqual(['hoop', 'helical', 'skip', 'geodesic']);
    expect(layers.items.variants.get('helical')?.fields.map((f) => [f.name, f.alias])).toEqual([
      ['windType', 'wind_type'],
      ['windAngle', 'wind_angle'],
      ['patternNumber', 'pattern_number'],
      ['skipIndex', 'skip_index'],
      ['lockDegrees', 'lock_degrees'],
      ['leadInMM', 'lead_in_mm'],
      ['leadOutDegrees', 'lead_out_degrees'],
      ['skipInitialNearLock', 'skip_initial_near_lock'],
    ]);
    const mandrel = model.fields[2];
    if (mandrel?.kind !== 'model') throw new Error('mandrelParameters is not a model');
    expect(mandrel.model.fields).toEqual([
      expect.objectContaining({
        name: 'diameter',
        alias: null,
        type: 'number',
        positive: true,
        required: true,
      }),
      expect.objectContaining({ name: 'windLength', alias: 'wind_length', positive: true, required: true }),
      expect.objectContaining({ name: 'endDiameter', nullable: true, required: false, default: null }),
      expect.objectContaining({ name: 'domes', kind: 'model', nullable: true, required: false }),
      expect.objectContaining({ name: 'meridianSegments', type: 'integer', required: false, default: 4096 }),
    ]);
    expect(model.fields[0]).toMatchObject({ type: 'string', default: '1.0', pattern: '^1\\.\\d+$' });
  });

  it('produces exactly the WindDefinition type', () => {
    expectTypeOf<z.output<typeof WindDefinitionSchema>>().toEqualTypeOf<WindDefinition>();
  });
});
