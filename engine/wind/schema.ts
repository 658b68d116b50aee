// The `.wind` document (spec/winding.md §2.3), defined once. Field order is validation order;
// `x-alias` metadata names the snake_case key (§2.4); `title` names the model in `model_type`
// messages. The loader's lax coercion (§2.5) is compiled from this schema (field-table.ts), the
// JSON Schema document is generated from it (json-schema.ts), and its parsed output type is the
// `WindDefinition` the planner receives.
import { z } from 'zod';

const positive = (description: string, alias?: string) =>
  z
    .number()
    .gt(0)
    .meta(alias === undefined ? { description } : { description, 'x-alias': alias });

const positiveInteger = (description: string, alias: string) =>
  z.int().gt(0).meta({ description, 'x-alias': alias });

const flag = (description: string, alias?: string) =>
  z
    .boolean()
    .default(false)
    .meta(alias === undefined ? { description } : { description, 'x-alias': alias });

const windType = <T extends string>(tag: T) =>
  z.literal(tag).meta({ description: 'Layer kind; the discriminator.', 'x-alias': 'wind_type' });

export const HoopLayerSchema = z
  .object({
    windType: windType('hoop'),
    terminal: flag('Winds one way and ends at the far end; no layer may follow it.'),
  })
  .meta({ id: 'HoopLayer', title: 'HoopLayer' });

export const HelicalLayerSchema = z
  .object({
    windType: windType('helical'),
    windAngle: positive(
      'Fibre angle from the mandrel axis, degrees (the planner accepts 1–89).',
      'wind_angle',
    ),
    patternNumber: positiveInteger('Number of evenly spaced start positions.', 'pattern_number'),
    skipIndex: positiveInteger('Stride between start positions.', 'skip_index'),
    lockDegrees: positive('Mandrel dwell rotation at each turn-around, degrees.', 'lock_degrees'),
    leadInMM: positive('Carriage travel over which the head ramps to its laying angle, mm.', 'lead_in_mm'),
    leadOutDegrees: positive(
      'Mandrel rotation after each pass while the head returns, degrees.',
      'lead_out_degrees',
    ),
    skipInitialNearLock: flag('Omit the initial lock-and-re-zero move.', 'skip_initial_near_lock'),
  })
  .meta({ id: 'HelicalLayer', title: 'HelicalLayer' });

export const SkipLayerSchema = z
  .object({
    windType: windType('skip'),
    mandrelRotation: z
      .number()
      .meta({ description: 'Mandrel turn with no fibre laid, degrees.', 'x-alias': 'mandrel_rotation' }),
  })
  .meta({ id: 'SkipLayer', title: 'SkipLayer' });

export const LayerSchema = z.discriminatedUnion('windType', [
  HoopLayerSchema,
  HelicalLayerSchema,
  SkipLayerSchema,
]);

export const MandrelParametersSchema = z
  .object({
    diameter: positive('Mandrel diameter, mm (on a cone the large end, at z = 0).'),
    windLength: positive('Carriage travel 0…windLength, mm.', 'wind_length'),
    endDiameter: z.number().gt(0).nullable().default(null).meta({
      description:
        'Diameter at z = windLength, mm. Smaller than diameter: a reducing cone, wound from the large end (schemaVersion 1.1 or later). Null, absent or equal to diameter: a cylinder.',
      'x-alias': 'end_diameter',
    }),
  })
  .meta({ id: 'MandrelParameters', title: 'MandrelParameters' });

export const TowParametersSchema = z
  .object({
    width: positive('Tow width, mm.'),
    thickness: positive('Tow thickness, mm (only echoed in the G-code header).'),
  })
  .meta({ id: 'TowParameters', title: 'TowParameters' });

export const WindDefinitionSchema = z
  .object({
    schemaVersion: z
      .string()
      .regex(/^1\.\d+$/)
      .default('1.0')
      .meta({
        description: 'Format version; any 1.x (a cone needs 1.1 or later).',
        'x-alias': 'schema_version',
      }),
    layers: z.array(LayerSchema).meta({ description: 'Layers in winding order; may be empty.' }),
    mandrelParameters: MandrelParametersSchema.meta({ 'x-alias': 'mandrel_parameters' }),
    towParameters: TowParametersSchema.meta({ 'x-alias': 'tow_parameters' }),
    defaultFeedRate: positive('Feed rate for every move, mm/min.', 'default_feed_rate'),
  })
  .meta({
    id: 'WindDefinition',
    title: 'WindDefinition',
    description:
      'A filament-winding definition (.wind), Towpath spec/winding.md §2. Keys are camelCase; every key with an ' +
      '`x-alias` may instead be written as that snake_case name (the camelCase key wins when both are present; ' +
      'for the layer tag `wind_type` wins). Values are shown in their canonical types; the loader also coerces ' +
      'numeric strings, booleans and 0/1 as spec §2.5 lists. Unknown keys are ignored.',
  });
