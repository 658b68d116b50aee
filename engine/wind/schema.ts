// The `.wind` document (spec/winding.md §2.3), defined once. Field order is validation order;
// `x-alias` metadata names the snake_case key (§2.4); `title` names the model in `model_type`
// messages. The loader's lax coercion (§2.5) is compiled from this schema (field-table.ts), the
// JSON Schema document is generated from it (json-schema.ts), and its parsed output type is the
// `WindDefinition` the planner receives.
import { z } from 'zod';

/**
 * What a form shows for a field: its label and unit (a design studio builds its forms from these,
 * so the words and units live here once, beside the description and range).
 */
interface FieldText {
  title: string;
  unit?: string;
  description: string;
  alias?: string;
}

function fieldMeta({ title, unit, description, alias }: FieldText): Record<string, string> {
  return {
    title,
    description,
    ...(unit === undefined ? {} : { 'x-unit': unit }),
    ...(alias === undefined ? {} : { 'x-alias': alias }),
  };
}

const positive = (text: FieldText) => z.number().gt(0).meta(fieldMeta(text));

const positiveInteger = (text: FieldText) => z.int().gt(0).meta(fieldMeta(text));

const flag = (text: FieldText) => z.boolean().default(false).meta(fieldMeta(text));

const windType = <T extends string>(tag: T) =>
  z.literal(tag).meta({ description: 'Layer kind; the discriminator.', 'x-alias': 'wind_type' });

export const HoopLayerSchema = z
  .object({
    windType: windType('hoop'),
    terminal: flag({
      title: 'Terminal',
      description: 'Winds one way and ends at the far end; no layer may follow it.',
    }),
  })
  .meta({ id: 'HoopLayer', title: 'HoopLayer' });

export const HelicalLayerSchema = z
  .object({
    windType: windType('helical'),
    windAngle: positive({
      title: 'Wind angle',
      unit: '°',
      description: 'Fibre angle from the mandrel axis, degrees (the planner accepts 1–89).',
      alias: 'wind_angle',
    }),
    patternNumber: positiveInteger({
      title: 'Pattern number',
      description: 'Number of evenly spaced start positions.',
      alias: 'pattern_number',
    }),
    skipIndex: positiveInteger({
      title: 'Skip index',
      description: 'Stride between start positions.',
      alias: 'skip_index',
    }),
    lockDegrees: positive({
      title: 'Lock rotation',
      unit: '°',
      description: 'Mandrel dwell rotation at each turn-around, degrees.',
      alias: 'lock_degrees',
    }),
    leadInMM: positive({
      title: 'Lead-in',
      unit: 'mm',
      description: 'Carriage travel over which the head ramps to its laying angle, mm.',
      alias: 'lead_in_mm',
    }),
    leadOutDegrees: positive({
      title: 'Lead-out rotation',
      unit: '°',
      description: 'Mandrel rotation after each pass while the head returns, degrees.',
      alias: 'lead_out_degrees',
    }),
    skipInitialNearLock: flag({
      title: 'Skip initial near lock',
      description: 'Omit the initial lock-and-re-zero move.',
      alias: 'skip_initial_near_lock',
    }),
  })
  .meta({ id: 'HelicalLayer', title: 'HelicalLayer' });

export const SkipLayerSchema = z
  .object({
    windType: windType('skip'),
    mandrelRotation: z.number().meta(
      fieldMeta({
        title: 'Mandrel rotation',
        unit: '°',
        description: 'Mandrel turn with no fibre laid, degrees.',
        alias: 'mandrel_rotation',
      }),
    ),
  })
  .meta({ id: 'SkipLayer', title: 'SkipLayer' });

/** A count, angle or radius the planner may choose itself ("auto"). */
const orAuto = <T extends z.ZodType<number>>(value: T, text: FieldText) =>
  z
    .union([value, z.literal('auto')])
    .default('auto')
    .meta(fieldMeta(text));

export const GeodesicLayerSchema = z
  .object({
    windType: windType('geodesic'),
    circuits: orAuto(z.int().gt(0), {
      title: 'Circuits',
      description: 'Circuits of the layer (equator slots), or "auto": the fewest that cover the equator.',
    }),
    patternAdvance: orAuto(z.int().gt(0), {
      title: 'Pattern advance',
      description:
        'Slots between consecutive circuit starts, coprime with circuits, or "auto": the one with the least dwell.',
      alias: 'pattern_advance',
    }),
    clairautRadius: orAuto(z.number().gt(0), {
      title: 'Clairaut radius',
      unit: 'mm',
      description:
        'Clairaut radius c of the geodesic r·sin α = c, mm, or "auto": half the larger polar opening plus half the band width.',
      alias: 'clairaut_radius',
    }),
    poleDwellDegrees: orAuto(z.number().min(0), {
      title: 'Pole dwell',
      unit: '°',
      description:
        'Mandrel turn at each pole with the carriage parked, degrees, or "auto": what closes the pattern.',
      alias: 'pole_dwell_degrees',
    }),
    stationSpacingMM: z
      .number()
      .gt(0)
      .default(1)
      .meta(
        fieldMeta({
          title: 'Station spacing',
          unit: 'mm',
          description: 'Largest fibre length between two stations, mm.',
          alias: 'station_spacing_mm',
        }),
      ),
  })
  .meta({ id: 'GeodesicLayer', title: 'GeodesicLayer' });

export const LayerSchema = z.discriminatedUnion('windType', [
  HoopLayerSchema,
  HelicalLayerSchema,
  SkipLayerSchema,
  GeodesicLayerSchema,
]);

export const DomeSchema = z
  .object({
    type: z.enum(['hemispherical', 'ellipsoidal', 'isotensoid', 'profile']).meta({
      title: 'Dome type',
      description:
        'Dome shape: a hemisphere, an ellipsoid of the given aspect, the geodesic-isotensoid of its opening and the band, or the given points.',
    }),
    polarOpeningDiameter: positive({
      title: 'Polar opening diameter',
      unit: 'mm',
      description: 'Diameter of the polar opening (the boss), mm.',
      alias: 'polar_opening_diameter',
    }),
    aspect: z.number().gt(0).nullable().default(null).meta({
      title: 'Aspect',
      description: 'Ellipsoidal dome: its height over the cylinder radius (1 is a hemisphere).',
    }),
    points: z
      .array(z.tuple([z.number(), z.number()]))
      .nullable()
      .default(null)
      .meta({
        description:
          'Profile dome: its meridian as [z, r] points from the equator ([0, diameter / 2]) outward, mm; z grows away from the cylinder.',
      }),
  })
  .meta({ id: 'Dome', title: 'Dome' });

const dome = (description: string) => DomeSchema.nullable().default(null).meta({ description });

export const DomesSchema = z
  .object({
    both: dome('The same dome at both ends.'),
    start: dome('The dome at z = 0 (before the cylinder).'),
    end: dome('The dome at z = windLength (after the cylinder).'),
  })
  .meta({ id: 'Domes', title: 'Domes' });

export const MandrelParametersSchema = z
  .object({
    diameter: positive({
      title: 'Diameter',
      unit: 'mm',
      description: 'Mandrel diameter, mm (on a cone the large end, at z = 0).',
    }),
    windLength: positive({
      title: 'Wind length',
      unit: 'mm',
      description: 'Carriage travel 0…windLength, mm.',
      alias: 'wind_length',
    }),
    endDiameter: z.number().gt(0).nullable().default(null).meta({
      title: 'End diameter',
      'x-unit': 'mm',
      description:
        'Diameter at z = windLength, mm. Smaller than diameter: a reducing cone, wound from the large end (schemaVersion 1.1 or later). Null, absent or equal to diameter: a cylinder.',
      'x-alias': 'end_diameter',
    }),
    domes: DomesSchema.nullable().default(null).meta({
      description:
        'A pressure vessel: the domes that close the cylinder (diameter and windLength are the cylinder\'s; the domes lie outside 0…windLength). Give "both", or "start" and "end". Needs schemaVersion 1.1 or later.',
    }),
    meridianSegments: z.int().gt(0).default(4096).meta({
      title: 'Meridian segments',
      description: 'Frusta each dome meridian is divided into for the path maths.',
      'x-alias': 'meridian_segments',
    }),
  })
  .meta({ id: 'MandrelParameters', title: 'MandrelParameters' });

export const TowParametersSchema = z
  .object({
    width: positive({ title: 'Width', unit: 'mm', description: 'Tow width, mm.' }),
    thickness: positive({
      title: 'Thickness',
      unit: 'mm',
      description: 'Tow thickness, mm (only echoed in the G-code header).',
    }),
  })
  .meta({ id: 'TowParameters', title: 'TowParameters' });

/** A carriage position the machine may reach, mm; null: no limit. */
const carriageLimit = (title: string, description: string, alias: string) =>
  z.number().nullable().default(null).meta({ title, description, 'x-unit': 'mm', 'x-alias': alias });

export const MachineSchema = z
  .object({
    eyeRadius: z.number().gt(0).nullable().default(null).meta({
      title: 'Eye radius',
      description:
        'Radius of the delivery eye from the mandrel axis, mm: geodesic layers place the carriage, mandrel and head so that the fibre from the eye touches the path. Null: the carriage X is the contact point z (the reference mapping).',
      'x-unit': 'mm',
      'x-alias': 'eye_radius',
    }),
    carriageMin: carriageLimit(
      'Carriage minimum',
      'Lowest carriage position X the machine reaches, mm; null: no limit.',
      'carriage_min',
    ),
    carriageMax: carriageLimit(
      'Carriage maximum',
      'Highest carriage position X the machine reaches, mm; null: no limit.',
      'carriage_max',
    ),
    eyeClearance: z.number().min(0).default(0).meta({
      title: 'Eye clearance',
      description: 'Least gap between the delivery eye and the mandrel surface, mm.',
      'x-unit': 'mm',
      'x-alias': 'eye_clearance',
    }),
  })
  .meta({ id: 'Machine', title: 'Machine' });

export const WindDefinitionSchema = z
  .object({
    schemaVersion: z
      .string()
      .regex(/^1\.\d+$/)
      .default('1.0')
      .meta({
        title: 'Schema version',
        description: 'Format version; any 1.x (a cone or a vessel needs 1.1 or later).',
        'x-alias': 'schema_version',
      }),
    layers: z.array(LayerSchema).meta({ description: 'Layers in winding order; may be empty.' }),
    mandrelParameters: MandrelParametersSchema.meta({ 'x-alias': 'mandrel_parameters' }),
    towParameters: TowParametersSchema.meta({ 'x-alias': 'tow_parameters' }),
    defaultFeedRate: positive({
      title: 'Feed rate',
      unit: 'mm/min',
      description: 'Feed rate for every move, mm/min.',
      alias: 'default_feed_rate',
    }),
    machine: MachineSchema.nullable().default(null).meta({
      description:
        'The winding machine: its delivery eye and carriage travel, used and checked by geodesic layers (the carriage travel by every layer); null or absent: X = z and no limits.',
    }),
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
