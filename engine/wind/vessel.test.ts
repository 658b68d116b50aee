// The vessel fields of schema 1.1: domes, meridianSegments and the geodesic layer, with the rules
// that tie them together (a dome at each end, the fields a dome type needs, the format version).
import { describe, expect, it } from 'vitest';
import { decodeJson } from './json-decoder.ts';
import { WindDefinitionSchema } from './schema.ts';
import type { WindDefinition } from './types.ts';
import { validateWindDocument } from './validate.ts';

const HEMI = { type: 'hemispherical', polarOpeningDiameter: 40 };

function vessel(mandrel: Record<string, unknown>, layers: unknown[] = [], version = '1.1') {
  return {
    schemaVersion: version,
    layers,
    mandrelParameters: { diameter: 150, windLength: 300, ...mandrel },
    towParameters: { width: 6, thickness: 0.3 },
    defaultFeedRate: 6000,
  };
}

function check(doc: unknown) {
  return validateWindDocument(decodeJson(JSON.stringify(doc)));
}

function value(doc: unknown): WindDefinition {
  const result = check(doc);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

/** `loc type: msg` of every issue. */
function issues(doc: unknown): string[] {
  const result = check(doc);
  return result.ok ? [] : result.issues.map((issue) => `${issue.loc.join('.')} ${issue.type}: ${issue.msg}`);
}

describe('mandrelParameters.domes', () => {
  it('reads both, with defaults for the optional dome fields and meridianSegments', () => {
    const read = value(vessel({ domes: { both: HEMI } }));
    expect(read.mandrelParameters).toEqual({
      diameter: 150,
      windLength: 300,
      endDiameter: null,
      domes: {
        both: { type: 'hemispherical', polarOpeningDiameter: 40, aspect: null, points: null },
        start: null,
        end: null,
      },
      meridianSegments: 4096,
    });
    expect(WindDefinitionSchema.parse(read)).toEqual(read);
  });

  it('reads start and end, snake_case aliases and coerced profile points', () => {
    const read = value(
      vessel({
        meridian_segments: '2000',
        domes: {
          start: { type: 'ellipsoidal', polar_opening_diameter: 30, aspect: '0.6' },
          end: {
            type: 'profile',
            polarOpeningDiameter: 30,
            points: [
              [0, 75],
              ['10', 70.5],
              [40, 20],
            ],
          },
        },
      }),
    );
    expect(read.mandrelParameters.meridianSegments).toBe(2000);
    expect(read.mandrelParameters.domes?.start).toEqual({
      type: 'ellipsoidal',
      polarOpeningDiameter: 30,
      aspect: 0.6,
      points: null,
    });
    expect(read.mandrelParameters.domes?.end?.points).toEqual([
      [0, 75],
      [10, 70.5],
      [40, 20],
    ]);
  });

  it('needs a dome at each end, given one way only', () => {
    expect(issues(vessel({ domes: { start: HEMI } }))).toEqual([
      'mandrelParameters.domes.end value_error: Value error, a vessel needs a dome at each end: "end" is missing (or give "both")',
    ]);
    expect(issues(vessel({ domes: {} }))).toHaveLength(2);
    expect(issues(vessel({ domes: { both: HEMI, end: HEMI } }))).toEqual([
      'mandrelParameters.domes.both value_error: Value error, give either "both", or "start" and "end", not "both" with another dome',
    ]);
  });

  it('names the shape field a dome type needs', () => {
    expect(issues(vessel({ domes: { both: { type: 'ellipsoidal', polarOpeningDiameter: 40 } } }))).toEqual([
      'mandrelParameters.domes.both.aspect value_error: Value error, an ellipsoidal dome needs its aspect (height over the cylinder radius)',
    ]);
    expect(
      issues(vessel({ domes: { both: { type: 'profile', polarOpeningDiameter: 40, points: [[0, 75]] } } })),
    ).toEqual([
      'mandrelParameters.domes.both.points value_error: Value error, a profile dome needs at least two [z, r] points',
    ]);
  });

  it('reports bad dome values where they are', () => {
    expect(issues(vessel({ domes: { both: { type: 'conical', polarOpeningDiameter: 0 } } }))).toEqual([
      "mandrelParameters.domes.both.type enum: Input should be 'hemispherical', 'ellipsoidal', 'isotensoid' or 'profile'",
      'mandrelParameters.domes.both.polarOpeningDiameter greater_than: Input should be greater than 0',
    ]);
    const points = (p: unknown) =>
      issues(vessel({ domes: { both: { type: 'profile', polarOpeningDiameter: 40, points: p } } }));
    expect(points([[0, 75], 3])).toEqual([
      'mandrelParameters.domes.both.points.1 tuple_type: Input should be a valid tuple',
    ]);
    expect(points([[0, 75, 1], [1]])).toEqual([
      'mandrelParameters.domes.both.points.0 too_long: Tuple should have at most 2 items after validation, not 3',
      'mandrelParameters.domes.both.points.1 too_short: Tuple should have at least 2 items after validation, not 1',
    ]);
    expect(points([[0, 'x']])).toEqual([
      'mandrelParameters.domes.both.points.0.1 float_parsing: Input should be a valid number, unable to parse string as a number',
    ]);
    expect(points('no')).toEqual([
      'mandrelParameters.domes.both.points list_type: Input should be a valid list',
    ]);
    expect(issues(vessel({ domes: 5 }))).toEqual([
      'mandrelParameters.domes model_type: Input should be a valid dictionary or instance of Domes',
    ]);
  });

  it('needs schemaVersion 1.1 and a cylinder', () => {
    expect(issues(vessel({ domes: { both: HEMI } }, [], '1.0'))).toEqual([
      'schemaVersion value_error: Value error, mandrelParameters.domes describes a pressure vessel; vessels need schemaVersion "1.1" or later (got "1.0")',
    ]);
    expect(issues(vessel({ domes: { both: HEMI }, endDiameter: 100 }))).toEqual([
      'mandrelParameters.domes value_error: Value error, domes close a cylinder, but endDiameter 100.0 differs from diameter 150.0 (a cone)',
    ]);
    expect(value(vessel({ domes: null }, [], '1.0')).mandrelParameters.domes).toBeNull();
  });
});

describe('geodesic layer', () => {
  it('defaults every choice to "auto" and the station spacing to 1 mm', () => {
    expect(value(vessel({ domes: { both: HEMI } }, [{ windType: 'geodesic' }])).layers).toEqual([
      {
        windType: 'geodesic',
        circuits: 'auto',
        patternAdvance: 'auto',
        clairautRadius: 'auto',
        poleDwellDegrees: 'auto',
        stationSpacingMM: 1,
      },
    ]);
  });

  it('reads numbers (coerced) in place of "auto"', () => {
    const layer = {
      wind_type: 'geodesic',
      circuits: '37',
      pattern_advance: 5,
      clairaut_radius: 23.5,
      pole_dwell_degrees: 0,
      station_spacing_mm: '0.5',
    };
    expect(value(vessel({ domes: { both: HEMI } }, [layer])).layers[0]).toEqual({
      windType: 'geodesic',
      circuits: 37,
      patternAdvance: 5,
      clairautRadius: 23.5,
      poleDwellDegrees: 0,
      stationSpacingMM: 0.5,
    });
  });

  it('refuses what is neither a number in range nor "auto"', () => {
    const layer = {
      windType: 'geodesic',
      circuits: 2.5,
      patternAdvance: 0,
      poleDwellDegrees: -1,
      clairautRadius: 'AUTO',
    };
    expect(issues(vessel({ domes: { both: HEMI } }, [layer]))).toEqual([
      'layers.0.geodesic.circuits int_from_float: Input should be a valid integer, got a number with a fractional part',
      'layers.0.geodesic.patternAdvance greater_than: Input should be greater than 0',
      'layers.0.geodesic.clairautRadius float_parsing: Input should be a valid number, unable to parse string as a number',
      'layers.0.geodesic.poleDwellDegrees greater_than_equal: Input should be greater than or equal to 0',
    ]);
  });
});
