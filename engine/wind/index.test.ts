import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { WindFileError } from '../errors.ts';
import { parseWindDefinition, parseWindText, validateWindDocument } from './index.ts';
import { decodeJson } from './json-decoder.ts';
import { WindDefinitionSchema } from './schema.ts';
import type { WindDefinition } from './types.ts';

const PATH = '/home/op/part.wind';
const HEADER = (n: number) =>
  `Wind definition at ${PATH} failed validation: ${n} validation error${n === 1 ? '' : 's'} for WindDefinition`;

const base = () => ({
  layers: [] as unknown[],
  mandrelParameters: { diameter: 70, windLength: 500 } as Record<string, unknown>,
  towParameters: { width: 7, thickness: 0.5 } as Record<string, unknown>,
  defaultFeedRate: 9000 as unknown,
});

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WindFileError);
    expect((error as WindFileError).missing).toBe(false);
    expect((error as WindFileError).level).toBe('file');
    return (error as Error).message;
  }
  throw new Error('expected a WindFileError');
}

const failText = (text: string) => messageOf(() => parseWindText(text, PATH));
const fail = (doc: unknown) => failText(JSON.stringify(doc));

/** `loc type` pairs of every issue, for order and location checks. */
function issues(text: string): string[] {
  const result = validateWindDocument(decodeJson(text));
  return result.ok ? [] : result.issues.map((issue) => `${issue.loc.join('.')} ${issue.type}`);
}
const issuesOf = (doc: unknown) => issues(JSON.stringify(doc));

const parse = (doc: unknown) => parseWindText(JSON.stringify(doc), PATH);

describe('parseWindDefinition: bytes', () => {
  it('rejects invalid UTF-8 with the offset of the first bad byte', () => {
    const bytes = new TextEncoder().encode('{"layers": "é??"}');
    bytes[14] = 0xff;
    expect(messageOf(() => parseWindDefinition(bytes, 'rel/p.wind'))).toBe(
      'Could not read wind definition at rel/p.wind: not valid UTF-8 (byte 14)',
    );
    const truncated = Uint8Array.of(0x7b, 0x20, 0xe2, 0x82);
    expect(messageOf(() => parseWindDefinition(truncated, PATH))).toBe(
      `Could not read wind definition at ${PATH}: not valid UTF-8 (byte 2)`,
    );
  });

  it('removes one leading BOM, and only one', () => {
    const text = JSON.stringify(base());
    const withBom = new TextEncoder().encode(`\ufeff${text}`);
    expect(withBom.subarray(0, 3)).toEqual(Uint8Array.of(0xef, 0xbb, 0xbf));
    expect(parseWindDefinition(withBom, PATH).defaultFeedRate).toBe(9000);
    expect(messageOf(() => parseWindDefinition(new TextEncoder().encode(`\ufeff\ufeff${text}`), PATH))).toBe(
      `Invalid JSON in ${PATH}: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)`,
    );
  });

  it('normalises CRLF and lone CR to LF before decoding', () => {
    const crlf = JSON.stringify(base(), null, 2).replaceAll('\n', '\r\n');
    expect(parseWindDefinition(new TextEncoder().encode(crlf), PATH).towParameters.width).toBe(7);
    expect(failText('{\r\n"a" 1}')).toBe(
      `Invalid JSON in ${PATH}: Expecting ':' delimiter: line 2 column 5 (char 6)`,
    );
    expect(failText('{\r"a":1,\r}')).toBe(
      `Invalid JSON in ${PATH}: Expecting property name enclosed in double quotes: line 3 column 1 (char 9)`,
    );
    expect(failText('\ufeff\r\n\r\n x')).toBe(
      `Invalid JSON in ${PATH}: Expecting value: line 3 column 2 (char 3)`,
    );
  });

  it('reports JSON errors with the path as given', () => {
    expect(messageOf(() => parseWindDefinition(new Uint8Array(0), 'part.wind'))).toBe(
      'Invalid JSON in part.wind: Expecting value: line 1 column 1 (char 0)',
    );
    expect(failText('{"a":1,}')).toBe(
      `Invalid JSON in ${PATH}: Expecting property name enclosed in double quotes: line 1 column 8 (char 7)`,
    );
  });
});

describe('reference cases', () => {
  const cases = readdirSync(REFERENCE_ROOT, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const read = (name: string, file: string) => readFileSync(join(REFERENCE_ROOT, name, file));

  it('covers all twelve cases', () => {
    expect(cases).toHaveLength(12);
  });

  for (const { name } of cases) {
    const expected = JSON.parse(read(name, 'expected.json').toString('utf8')) as {
      error?: { level: string; detail: string };
    };
    if (expected.error?.level === 'file') {
      it(`${name}: fails with the expected detail`, () => {
        const path = `/tmp/cases/${name}/input.wind`;
        expect(messageOf(() => parseWindDefinition(read(name, 'input.wind'), path))).toBe(
          expected.error?.detail.replaceAll('{path}', path),
        );
      });
    } else {
      it(`${name}: parses into the strict schema`, () => {
        const definition = parseWindDefinition(read(name, 'input.wind'), name);
        expect(WindDefinitionSchema.parse(definition)).toEqual(definition);
        expect(definition.schemaVersion).toBe('1.0');
        expect(definition.mandrelParameters.endDiameter).toBeNull();
      });
    }
  }

  it('reads field values', () => {
    const multi = parseWindDefinition(read('multi_layer', 'input.wind'), 'm');
    expect(multi.mandrelParameters).toEqual({
      diameter: 69.75,
      windLength: 940,
      endDiameter: null,
      domes: null,
      meridianSegments: 4096,
    });
    expect(multi.layers).toEqual([
      { windType: 'hoop', terminal: false },
      {
        windType: 'helical',
        windAngle: 55,
        patternNumber: 2,
        skipIndex: 1,
        lockDegrees: 720,
        leadInMM: 30,
        leadOutDegrees: 90,
        skipInitialNearLock: true,
      },
    ]);
    const sized = parseWindDefinition(read('sized_simple_cylinder', 'input.wind'), 's');
    expect(sized.towParameters).toEqual({ width: 9.525, thickness: 0.4 });
    expect(sized.mandrelParameters.windLength).toBe(812.8);
    const skip = parseWindDefinition(read('conf_valid_skip', 'input.wind'), 'k');
    expect(skip.layers).toEqual([{ windType: 'skip', mandrelRotation: 45 }]);
    const angle = parseWindDefinition(read('conf_invalid_wind_angle_out_of_range', 'input.wind'), 'a');
    expect(angle.layers[0]).toMatchObject({ windType: 'helical', windAngle: 95 });
  });
});

describe('schema report', () => {
  it('matches the spec example', () => {
    const { defaultFeedRate: _, ...doc } = base();
    expect(fail(doc)).toBe(`${HEADER(1)}\ndefaultFeedRate\n  Field required [type=missing]`);
  });

  it('omits the location line when the top level is not an object', () => {
    expect(failText('[]')).toBe(
      `${HEADER(1)}\n  Input should be a valid dictionary or instance of WindDefinition [type=model_type]`,
    );
    expect(failText('NaN')).toBe(
      `${HEADER(1)}\n  Input should be a valid dictionary or instance of WindDefinition [type=model_type]`,
    );
  });

  it('lists every error in validation order', () => {
    const doc = {
      defaultFeedRate: 0,
      towParameters: { thickness: 'thin' },
      mandrel_parameters: { diameter: -1, wind_length: null },
      layers: [{ windType: 'helical', windAngle: '45°', skipIndex: 1.5 }, 7],
      schemaVersion: '2.0',
    };
    expect(fail(doc)).toBe(
      [
        HEADER(13),
        'schemaVersion',
        "  String should match pattern '^1\\.\\d+$' [type=string_pattern_mismatch]",
        'layers.0.helical.windAngle',
        '  Input should be a valid number, unable to parse string as a number [type=float_parsing]',
        'layers.0.helical.patternNumber',
        '  Field required [type=missing]',
        'layers.0.helical.skipIndex',
        '  Input should be a valid integer, got a number with a fractional part [type=int_from_float]',
        'layers.0.helical.lockDegrees',
        '  Field required [type=missing]',
        'layers.0.helical.leadInMM',
        '  Field required [type=missing]',
        'layers.0.helical.leadOutDegrees',
        '  Field required [type=missing]',
        'layers.1',
        '  Input should be a valid dictionary or object to extract fields from [type=model_attributes_type]',
        'mandrel_parameters.diameter',
        '  Input should be greater than 0 [type=greater_than]',
        'mandrel_parameters.wind_length',
        '  Input should be a valid number [type=float_type]',
        'towParameters.width',
        '  Field required [type=missing]',
        'towParameters.thickness',
        '  Input should be a valid number, unable to parse string as a number [type=float_parsing]',
        'defaultFeedRate',
        '  Input should be greater than 0 [type=greater_than]',
      ].join('\n'),
    );
  });

  it('lists at most 100 errors', () => {
    const doc = { ...base(), layers: Array.from({ length: 123 }, () => ({})) };
    const lines = fail(doc).split('\n');
    expect(lines[0]).toBe(HEADER(123));
    expect(lines).toHaveLength(1 + 200 + 1);
    expect(lines[199]).toBe('layers.99');
    expect(lines[201]).toBe('(23 more errors not shown)');
    const exactly = { ...base(), layers: Array.from({ length: 100 }, () => ({})) };
    const exactLines = fail(exactly).split('\n');
    expect(exactLines).toHaveLength(201);
    expect(exactLines[200]).toBe(
      "  Unable to extract tag using discriminator 'wind_type' | 'windType' [type=union_tag_not_found]",
    );
  });
});

describe('error types', () => {
  const one = (doc: unknown, loc: string, msg: string, type: string) =>
    expect(fail(doc)).toBe(`${HEADER(1)}\n${loc}\n  ${msg} [type=${type}]`);
  const withLayer = (layer: unknown) => ({ ...base(), layers: [layer] });
  const helical = (extra: Record<string, unknown>) => ({
    windType: 'helical',
    windAngle: 45,
    patternNumber: 3,
    skipIndex: 1,
    lockDegrees: 180,
    leadInMM: 5,
    leadOutDegrees: 15,
    ...extra,
  });

  it('model_type for the parameter objects', () => {
    one(
      { ...base(), mandrelParameters: 5 },
      'mandrelParameters',
      'Input should be a valid dictionary or instance of MandrelParameters',
      'model_type',
    );
    one(
      { ...base(), towParameters: null },
      'towParameters',
      'Input should be a valid dictionary or instance of TowParameters',
      'model_type',
    );
  });

  it('list_type', () => {
    one({ ...base(), layers: {} }, 'layers', 'Input should be a valid list', 'list_type');
  });

  it('union_tag_not_found and union_tag_invalid', () => {
    one(
      withLayer({ terminal: true }),
      'layers.0',
      "Unable to extract tag using discriminator 'wind_type' | 'windType'",
      'union_tag_not_found',
    );
    const invalid = (tag: string) =>
      `Input tag '${tag}' found using 'wind_type' | 'windType' does not match any of the expected tags: 'hoop', 'helical', 'skip', 'geodesic'`;
    one(withLayer({ windType: 'Hoop' }), 'layers.0', invalid('Hoop'), 'union_tag_invalid');
    one(withLayer({ windType: ' hoop' }), 'layers.0', invalid(' hoop'), 'union_tag_invalid');
    one(withLayer({ windType: 5 }), 'layers.0', invalid('5'), 'union_tag_invalid');
    one(withLayer({ windType: null }), 'layers.0', invalid('null'), 'union_tag_invalid');
    one(withLayer({ windType: false }), 'layers.0', invalid('false'), 'union_tag_invalid');
    one(
      withLayer({ windType: ['é', { a: 1 }] }),
      'layers.0',
      invalid('["\\u00e9",{"a":1}]'),
      'union_tag_invalid',
    );
    const floatTag = JSON.stringify(withLayer({ windType: 0 })).replace('"windType":0', '"windType":1.0');
    expect(failText(floatTag)).toContain(invalid('1.0'));
    const nanTag = JSON.stringify(withLayer({ windType: 0 })).replace('"windType":0', '"windType":-Infinity');
    expect(failText(nanTag)).toContain(invalid('-Infinity'));
  });

  it('reads the tag from wind_type first and requires windType to agree', () => {
    one(
      withLayer({ wind_type: 'hoop', windType: 'skip' }),
      'layers.0.hoop.windType',
      "Input should be 'hoop'",
      'literal_error',
    );
    one(
      withLayer({ wind_type: 'skip', windType: 5, mandrelRotation: 1 }),
      'layers.0.skip.windType',
      "Input should be 'skip'",
      'literal_error',
    );
    expect(issuesOf(withLayer({ wind_type: 'spiral', windType: 'hoop' }))).toEqual([
      'layers.0 union_tag_invalid',
    ]);
    expect(fail(withLayer({ wind_type: 'spiral', windType: 'hoop' }))).toContain("Input tag 'spiral' found");
  });

  it('float_type, float_parsing, finite_number, greater_than', () => {
    one(
      { ...base(), defaultFeedRate: [] },
      'defaultFeedRate',
      'Input should be a valid number',
      'float_type',
    );
    one(
      { ...base(), defaultFeedRate: '9,000' },
      'defaultFeedRate',
      'Input should be a valid number, unable to parse string as a number',
      'float_parsing',
    );
    one(
      { ...base(), defaultFeedRate: 'Infinity' },
      'defaultFeedRate',
      'Input should be a finite number',
      'finite_number',
    );
    one(
      { ...base(), defaultFeedRate: '-0' },
      'defaultFeedRate',
      'Input should be greater than 0',
      'greater_than',
    );
    one(
      { ...base(), defaultFeedRate: false },
      'defaultFeedRate',
      'Input should be greater than 0',
      'greater_than',
    );
    const nan = JSON.stringify(base()).replace('"defaultFeedRate":9000', '"defaultFeedRate":NaN');
    expect(failText(nan)).toBe(
      `${HEADER(1)}\ndefaultFeedRate\n  Input should be a finite number [type=finite_number]`,
    );
    const overflow = JSON.stringify(base()).replace('"defaultFeedRate":9000', '"defaultFeedRate":1e400');
    expect(failText(overflow)).toContain('[type=finite_number]');
  });

  it('int_type, int_parsing, int_from_float, int_parsing_size', () => {
    const loc = 'layers.0.helical.patternNumber';
    one(withLayer(helical({ patternNumber: null })), loc, 'Input should be a valid integer', 'int_type');
    one(
      withLayer(helical({ patternNumber: '3.5' })),
      loc,
      'Input should be a valid integer, unable to parse string as an integer',
      'int_parsing',
    );
    one(
      withLayer(helical({ patternNumber: 2.5 })),
      loc,
      'Input should be a valid integer, got a number with a fractional part',
      'int_from_float',
    );
    one(
      withLayer(helical({ patternNumber: 2 ** 53 })),
      loc,
      'Unable to parse input string as an integer, exceeded maximum size',
      'int_parsing_size',
    );
    one(withLayer(helical({ patternNumber: 0 })), loc, 'Input should be greater than 0', 'greater_than');
  });

  it('bool_type, bool_parsing', () => {
    const loc = 'layers.0.hoop.terminal';
    one(withLayer({ windType: 'hoop', terminal: 0.5 }), loc, 'Input should be a valid boolean', 'bool_type');
    one(withLayer({ windType: 'hoop', terminal: null }), loc, 'Input should be a valid boolean', 'bool_type');
    one(
      withLayer({ windType: 'hoop', terminal: 'maybe' }),
      loc,
      'Input should be a valid boolean, unable to interpret input',
      'bool_parsing',
    );
    one(
      withLayer({ windType: 'hoop', terminal: 2 }),
      loc,
      'Input should be a valid boolean, unable to interpret input',
      'bool_parsing',
    );
  });

  it('string_type and string_pattern_mismatch', () => {
    one({ ...base(), schemaVersion: 1.0 }, 'schemaVersion', 'Input should be a valid string', 'string_type');
    one({ ...base(), schemaVersion: null }, 'schemaVersion', 'Input should be a valid string', 'string_type');
    for (const version of ['2.0', '1', '01.0', '1.', '1.0.0', '1.x', 'v1.0', '1.٠'])
      one(
        { ...base(), schema_version: version },
        'schema_version',
        "String should match pattern '^1\\.\\d+$'",
        'string_pattern_mismatch',
      );
  });

  it('value_error for a cone in a 1.0 definition, at the version key as found', () => {
    one(
      { ...base(), mandrelParameters: { diameter: 70, windLength: 500, endDiameter: 50 } },
      'schemaVersion',
      'Value error, endDiameter 50.0 differs from diameter 70.0, which describes a cone; cones need schemaVersion "1.1" or later (got "1.0")',
      'value_error',
    );
    const { mandrelParameters: _, ...rest } = base();
    one(
      {
        ...rest,
        schema_version: ' 1.0 ',
        mandrel_parameters: { diameter: '1e-5', wind_length: 500, end_diameter: 12.5 },
      },
      'schema_version',
      'Value error, endDiameter 12.5 differs from diameter 1e-05, which describes a cone; cones need schemaVersion "1.1" or later (got "1.0")',
      'value_error',
    );
  });
});

describe('cone rule', () => {
  const mandrel = (m: Record<string, unknown>, schemaVersion?: string) => ({
    ...base(),
    ...(schemaVersion === undefined ? {} : { schemaVersion }),
    mandrelParameters: m,
  });

  it('accepts an end diameter equal to the diameter, null, or absent, in any 1.x', () => {
    expect(
      parse(mandrel({ diameter: 70, windLength: 500, endDiameter: '70.0' })).mandrelParameters.endDiameter,
    ).toBe(70);
    expect(
      parse(mandrel({ diameter: 70, windLength: 500, endDiameter: null })).mandrelParameters.endDiameter,
    ).toBeNull();
    expect(parse(mandrel({ diameter: 70, windLength: 500 })).mandrelParameters.endDiameter).toBeNull();
  });

  it('accepts a cone from schemaVersion 1.1 on, reducing or not (the planner judges the layers)', () => {
    for (const version of ['1.1', '1.2', '1.10', '1.01']) {
      expect(
        parse(mandrel({ diameter: 98, windLength: 120, endDiameter: 54 }, version)).mandrelParameters,
      ).toEqual({
        diameter: 98,
        windLength: 120,
        endDiameter: 54,
        domes: null,
        meridianSegments: 4096,
      });
    }
    expect(
      parse(mandrel({ diameter: 54, windLength: 120, end_diameter: 98 }, '1.1')).mandrelParameters,
    ).toEqual({
      diameter: 54,
      windLength: 120,
      endDiameter: 98,
      domes: null,
      meridianSegments: 4096,
    });
    expect(issuesOf(mandrel({ diameter: 98, windLength: 120, endDiameter: 54 }, '1.00'))).toEqual([
      'schemaVersion value_error',
    ]);
  });

  it('runs only when every field of the definition validated', () => {
    expect(issuesOf(mandrel({ diameter: 70, windLength: 0, endDiameter: 80 }))).toEqual([
      'mandrelParameters.windLength greater_than',
    ]);
    expect(issuesOf(mandrel({ diameter: 70, windLength: 500, endDiameter: 0 }))).toEqual([
      'mandrelParameters.endDiameter greater_than',
    ]);
    expect(
      issuesOf({ ...mandrel({ diameter: 70, windLength: 500, endDiameter: 80 }), defaultFeedRate: -1 }),
    ).toEqual(['defaultFeedRate greater_than']);
  });
});

describe('keys and aliases', () => {
  it('reads snake_case aliases when the camelCase key is absent', () => {
    const definition = parse({
      schema_version: ' 1.25\n',
      layers: [
        { wind_type: 'hoop', terminal: 'yes' },
        {
          wind_type: 'helical',
          wind_angle: '45',
          pattern_number: '3',
          skip_index: 1,
          lock_degrees: 180,
          lead_in_mm: 5,
          lead_out_degrees: 15,
          skip_initial_near_lock: 1,
        },
        { wind_type: 'skip', mandrel_rotation: '-90' },
      ],
      mandrel_parameters: { diameter: 70, wind_length: 500, end_diameter: 70 },
      tow_parameters: { width: 7, thickness: 0.5 },
      default_feed_rate: '9_000',
    });
    expect(definition).toEqual({
      schemaVersion: '1.25',
      layers: [
        { windType: 'hoop', terminal: true },
        {
          windType: 'helical',
          windAngle: 45,
          patternNumber: 3,
          skipIndex: 1,
          lockDegrees: 180,
          leadInMM: 5,
          leadOutDegrees: 15,
          skipInitialNearLock: true,
        },
        { windType: 'skip', mandrelRotation: -90 },
      ],
      mandrelParameters: {
        diameter: 70,
        windLength: 500,
        endDiameter: 70,
        domes: null,
        meridianSegments: 4096,
      },
      towParameters: { width: 7, thickness: 0.5 },
      defaultFeedRate: 9000,
      machine: null,
    } satisfies WindDefinition);
    expect(WindDefinitionSchema.parse(definition)).toEqual(definition);
  });

  it('uses the camelCase key whenever present, even null, and ignores the alias entirely', () => {
    expect(issuesOf({ ...base(), defaultFeedRate: null, default_feed_rate: 9000 })).toEqual([
      'defaultFeedRate float_type',
    ]);
    expect(parse({ ...base(), default_feed_rate: 'not a number' }).defaultFeedRate).toBe(9000);
    expect(parse({ ...base(), schemaVersion: '1.0', schema_version: '2.0' }).schemaVersion).toBe('1.0');
  });

  it('is case-sensitive and ignores unknown keys', () => {
    expect(issuesOf({ ...base(), DefaultFeedRate: 9000, defaultFeedRate: undefined })).toEqual([
      'defaultFeedRate missing',
    ]);
    expect(
      parse({ ...base(), extra: { anything: [1, 2] }, layers: [{ windType: 'hoop', color: 'red' }] }).layers,
    ).toEqual([{ windType: 'hoop', terminal: false }]);
  });

  it('reads windType by the normal rule once the tag chose the variant', () => {
    expect(parse({ ...base(), layers: [{ wind_type: 'hoop', windType: 'hoop' }] }).layers[0]?.windType).toBe(
      'hoop',
    );
    expect(issuesOf({ ...base(), layers: [{ windType: 'hoop', wind_type: 'skip' }] })).toEqual([
      'layers.0.skip.windType literal_error',
      'layers.0.skip.mandrelRotation missing',
    ]);
  });

  it('names absent fields in camelCase and present ones as found', () => {
    expect(issuesOf({ layers: [], mandrel_parameters: {}, tow_parameters: { width: 0 } })).toEqual([
      'mandrel_parameters.diameter missing',
      'mandrel_parameters.windLength missing',
      'tow_parameters.width greater_than',
      'tow_parameters.thickness missing',
      'defaultFeedRate missing',
    ]);
  });
});

describe('values', () => {
  it('applies defaults', () => {
    const definition = parse({ ...base(), layers: [{ windType: 'hoop' }] });
    expect(definition.schemaVersion).toBe('1.0');
    expect(definition.layers).toEqual([{ windType: 'hoop', terminal: false }]);
  });

  it('keeps -0.0 negative but makes the integer -0 positive', () => {
    const text = (token: string) =>
      JSON.stringify({ ...base(), layers: [{ windType: 'skip', mandrelRotation: 0 }] }).replace(
        '"mandrelRotation":0',
        `"mandrelRotation":${token}`,
      );
    const rotation = (token: string) => {
      const layer = parseWindText(text(token), PATH).layers[0];
      return layer?.windType === 'skip' ? layer.mandrelRotation : Number.NaN;
    };
    expect(Object.is(rotation('-0'), 0)).toBe(true);
    expect(Object.is(rotation('-0.0'), -0)).toBe(true);
    expect(Object.is(rotation('-1e-400'), -0)).toBe(true);
    expect(rotation('true')).toBe(1);
  });
});
