// Request and response bodies of the winding door (spec/winding.md §7.1), defined once with zod:
// the same schemas validate requests and generate /openapi.json.
import { z } from 'zod';

/** Strict JSON types (no coercion), each with the spec's message (§7.1). */
const requiredString = z.string({
  error: (issue) => (issue.input === undefined ? 'Field required' : 'Input should be a valid string'),
});
const flag = z.boolean({ error: 'Input should be a valid boolean' });

const pathField = requiredString.describe(
  'Absolute path of the input file; it must lie under WINDING_ALLOWED_ROOTS after resolving symlinks and `..`.',
);

export const PlanRequest = z
  .object({
    path: pathField,
    axis_format: z
      .enum(['xab', 'xyz'], { error: "Input should be 'xab' or 'xyz'" })
      .default('xab')
      .describe('Axis letters of the G-code: `xab` (default) or the legacy `xyz`.'),
    verbose: flag.default(false).describe('Write a comment before every move.'),
  })
  .meta({ title: 'PlanRequest' });

export const PathRequest = z.object({ path: pathField }).meta({ title: 'PathRequest' });

export const StreamRequest = z
  .object({
    gcode: requiredString.describe('The G-code program text.'),
    port: z
      .string({ error: 'Input should be a valid string' })
      .nullable()
      .default(null)
      .describe('Serial port of the controller; required unless dry_run.'),
    baud_rate: z
      .number({ error: 'Input should be a valid integer' })
      .int({ error: 'Input should be a valid integer' })
      .min(1, { error: 'Input should be greater than or equal to 1' })
      .default(250000)
      .describe('Baud rate of the serial port.'),
    dry_run: flag.default(true).describe('Validate and count the commands without opening any port.'),
  })
  .meta({ title: 'StreamRequest' });

export const LayerMetrics = z
  .object({
    index: z.number().int(),
    wind_type: z.enum(['hoop', 'helical', 'skip', 'geodesic']),
    commands: z.number().int(),
    time_s: z.number(),
    cumulative_time_s: z.number(),
    tow_m: z.number(),
    cumulative_tow_m: z.number(),
    terminal: z.boolean(),
  })
  .meta({ title: 'LayerMetrics' });

const Series = (description: string) => z.array(z.number()).describe(description);

export const LayerAnalysis = z
  .object({
    index: z.number().int(),
    wind_type: z.enum(['hoop', 'helical', 'skip', 'geodesic']),
    angle_deg: z
      .array(z.number().nullable())
      .describe('Fibre angle from the axis at each position, degrees; null where the layer lays nothing.'),
    thickness_mm: Series('Thickness the layer lays at each position, mm.'),
    cumulative_thickness_mm: Series('Thickness of this layer and all before it, mm.'),
    coverage: z
      .object({
        slots: z.number().int().describe('Circuits: evenly spaced slots round the equator.'),
        advance: z.number().int().describe('Slots between circuit starts (geodesic) or the skip (helical).'),
        overlap_percent: z.number().describe('How much more than once the bands cover the equator, %.'),
        dwell_deg: z.number().describe('Dwell per circuit at each pole (geodesic) or per pass (helical), °.'),
      })
      .nullable(),
  })
  .meta({ title: 'LayerAnalysis' });

export const PlanAnalysis = z
  .object({
    z_mm: Series('Axial positions along the meridian, mm (z = 0 where the cylinder starts).'),
    radius_mm: Series('Mandrel radius at each position, mm.'),
    layers: z.array(LayerAnalysis),
  })
  .describe('Vessels only: fibre angle, thickness and coverage along the part (docs/winding-vessels.md).')
  .meta({ title: 'PlanAnalysis' });

export const PlanResponse = z
  .object({
    commands: z.number().int().describe('Lines of the written file.'),
    output: z.string().describe('Absolute path of the written G-code file.'),
    timeSeconds: z.number(),
    towMeters: z.number(),
    axisFormat: z.enum(['xab', 'xyz']),
    layers: z.array(LayerMetrics),
    analysis: PlanAnalysis.optional(),
  })
  .meta({ title: 'PlanResponse' });

export const SimulateResponse = z
  .object({
    commands: z.number().int(),
    moves: z.number().int(),
    estimated_time_s: z.number(),
    total_distance_mm: z.number(),
    tow_length_mm: z.number(),
    average_feed_rate_mmpm: z.number(),
  })
  .meta({ title: 'SimulateResponse' });

export const ValidateResponse = z
  .object({ status: z.literal('ok'), path: z.string().describe('The path exactly as sent.') })
  .meta({ title: 'ValidateResponse' });

export const ValidateError = z
  .object({ status: z.literal('error'), detail: z.string() })
  .meta({ title: 'ValidateError' });

export const StreamResponse = z
  .object({
    commands_streamed: z.number().int(),
    total_commands: z.number().int(),
    dry_run: z.boolean(),
  })
  .meta({ title: 'StreamResponse' });

export const ErrorBody = z.object({ detail: z.string() }).meta({ title: 'Error' });

export type PlanRequest = z.output<typeof PlanRequest>;
export type PathRequest = z.output<typeof PathRequest>;
export type StreamRequest = z.output<typeof StreamRequest>;
