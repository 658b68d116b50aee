// The machine section: the delivery eye and the carriage travel, read with defaults and aliases,
// and the two rules that need more than one field (the eye clears the widest part of the mandrel,
// the carriage's lower limit is below its upper one).
import { describe, expect, it } from 'vitest';
import { decodeJson } from './json-decoder.ts';
import { WindDefinitionSchema } from './schema.ts';
import { validateWindDocument } from './validate.ts';

function definition(machine: unknown, mandrel: Record<string, unknown> = {}) {
  return {
    schemaVersion: '1.1',
    layers: [],
    mandrelParameters: { diameter: 150, windLength: 300, ...mandrel },
    towParameters: { width: 6, thickness: 0.3 },
    defaultFeedRate: 6000,
    ...(machine === undefined ? {} : { machine }),
  };
}

function check(doc: unknown) {
  return validateWindDocument(decodeJson(JSON.stringify(doc)));
}

/** `loc type: msg` of every issue. */
function issues(doc: unknown): string[] {
  const result = check(doc);
  return result.ok ? [] : result.issues.map((issue) => `${issue.loc.join('.')} ${issue.type}: ${issue.msg}`);
}

describe('machine', () => {
  it('is null when absent; its fields default to no eye, no limits and no clearance', () => {
    const absent = check(definition(undefined));
    expect(absent.ok && absent.value.machine).toBeNull();
    const empty = check(definition({}));
    expect(empty.ok && empty.value.machine).toEqual({
      eyeRadius: null,
      carriageMin: null,
      carriageMax: null,
      eyeClearance: 0,
    });
  });

  it('reads snake_case aliases and numeric strings', () => {
    const read = check(
      definition({ eye_radius: '95', carriage_min: -250, carriage_max: '650', eye_clearance: 5 }),
    );
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    expect(read.value.machine).toEqual({
      eyeRadius: 95,
      carriageMin: -250,
      carriageMax: 650,
      eyeClearance: 5,
    });
    expect(WindDefinitionSchema.parse(read.value)).toEqual(read.value);
  });

  it('refuses an eye that would touch the mandrel, the widest profile point included', () => {
    expect(issues(definition({ eyeRadius: 80, eyeClearance: 10 }))).toEqual([
      'machine value_error: Value error, the delivery eye (eyeRadius 80.0 mm) must clear the mandrel, whose widest radius is 75.0 mm, by eyeClearance 10.0 mm',
    ]);
    expect(issues(definition({ eyeRadius: 85, eyeClearance: 10 }))).toEqual([]);
    const bulge = {
      domes: {
        both: {
          type: 'profile',
          polarOpeningDiameter: 30,
          points: [
            [0, 75],
            [20, 90],
            [60, 15],
          ],
        },
      },
    };
    expect(issues(definition({ eyeRadius: 85 }, bulge))).toEqual([
      'machine value_error: Value error, the delivery eye (eyeRadius 85.0 mm) must clear the mandrel, whose widest radius is 90.0 mm, by eyeClearance 0.0 mm',
    ]);
  });

  it('refuses limits in the wrong order and values out of range, each where it is', () => {
    expect(issues(definition({ carriageMin: 400, carriageMax: 400 }))).toEqual([
      'machine.carriageMax value_error: Value error, carriageMin 400.0 is not below carriageMax 400.0',
    ]);
    expect(issues(definition({ eyeRadius: 0, eyeClearance: -1, carriageMin: 'x' }))).toEqual([
      'machine.eyeRadius greater_than: Input should be greater than 0',
      'machine.carriageMin float_parsing: Input should be a valid number, unable to parse string as a number',
      'machine.eyeClearance greater_than_equal: Input should be greater than or equal to 0',
    ]);
    expect(issues(definition(7))).toEqual([
      'machine model_type: Input should be a valid dictionary or instance of Machine',
    ]);
  });
});
