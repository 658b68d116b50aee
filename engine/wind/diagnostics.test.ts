// The source editor's diagnostics: each at the exact token it is about, with the engine's own
// message, so that together they say what `towpath validate` says (parse + schema + planning).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanningError, WindFileError } from '../errors.ts';
import { checkPlan } from '../plan/index.ts';
import { planningDiagnostic, type WindDiagnostic, windDiagnostics } from './diagnostics.ts';
import { parseWindText } from './index.ts';
import type { HelicalLayer } from './types.ts';

const PATH = '/parts/part.wind';
const REFERENCE = join(import.meta.dirname, '..', '..', 'reference', 'winding');

/** What validate reports for `text` (schema and planning levels), or null when it plans. */
function validateMessage(text: string): string | null {
  try {
    checkPlan(parseWindText(text, PATH));
    return null;
  } catch (error) {
    if (error instanceof WindFileError || error instanceof PlanningError) return error.message;
    throw error;
  }
}

/** Validate's message rebuilt from the diagnostics alone. */
function reportFrom(diagnostics: readonly WindDiagnostic[]): string | null {
  const first = diagnostics[0];
  if (first === undefined) return null;
  if (first.source === 'JSON') return `Invalid JSON in ${PATH}: ${first.message}`;
  if (first.source === 'planning') return first.message;
  const n = diagnostics.length;
  const header = `Wind definition at ${PATH} failed validation: ${n} validation error${n === 1 ? '' : 's'} for WindDefinition`;
  return [header, ...diagnostics.map((d) => d.message)].join('\n');
}

/** The diagnostics with the text each one covers, checked against validate on the way. */
function marked(text: string): { at: string; message: string; from: number }[] {
  const diagnostics = windDiagnostics(text);
  expect(reportFrom(diagnostics)).toBe(validateMessage(text));
  return diagnostics.map((d) => ({ at: text.slice(d.from, d.to), message: d.message, from: d.from }));
}

/** A helical layer as written in a file (where `skipInitialNearLock` may be left out). */
type Helical = Omit<HelicalLayer, 'skipInitialNearLock'>;

/** The helical layer of reference conf_valid_helical: 26 circuits on this mandrel. */
const HELICAL = (
  JSON.parse(readFileSync(join(REFERENCE, 'conf_valid_helical', 'input.wind'), 'utf8')) as {
    layers: [Helical];
  }
).layers[0];

function definition(layers: unknown[], extra: Record<string, unknown> = {}): string {
  const body = {
    layers,
    mandrelParameters: { diameter: 70, windLength: 500 },
    towParameters: { width: 7, thickness: 0.5 },
    defaultFeedRate: 9000,
    ...extra,
  };
  return JSON.stringify(body, null, 2);
}

describe('JSON syntax errors', () => {
  it.each([
    ['{"a":1,}', '}', 7],
    ['{"a" 1}', '1', 5],
    ['{\n  "layers": [1 2]\n}', '2', 17],
    ['{"a": tru}', 't', 6],
    ['{"a": "x\\q"}', '\\', 8],
    ['[1]x', 'x', 3],
  ])('%j is marked at its offending character', (text, at, from) => {
    expect(marked(text)).toEqual([{ at, from, message: expect.stringMatching(/ \(char \d+\)$/) }]);
  });

  it('an unterminated string is marked at its opening quote, a raw control character at itself', () => {
    expect(marked('{"a": "abc')).toEqual([
      { at: '"', from: 6, message: 'Unterminated string starting at: line 1 column 7 (char 6)' },
    ]);
    expect(marked('{"a": "ab\tc"}')).toEqual([
      { at: '\t', from: 9, message: 'Invalid control character at: line 1 column 10 (char 9)' },
    ]);
  });

  it('at the end of the text or of a line, the mark is an empty point there', () => {
    expect(windDiagnostics('{"a": 1')).toEqual([
      {
        from: 7,
        to: 7,
        severity: 'error',
        source: 'JSON',
        message: "Expecting ',' delimiter: line 1 column 8 (char 7)",
      },
    ]);
    expect(windDiagnostics('{"a":\n')[0]).toMatchObject({ from: 6, to: 6 });
  });

  it('keeps offsets in the text as given when it has a BOM and CRLF line ends', () => {
    const text = '\ufeff{\r\n  "a": 1,\r\n  "b" 2\r\n}';
    const [d] = windDiagnostics(text);
    expect(text.slice(d?.from, d?.to)).toBe('2');
    expect(reportFrom(windDiagnostics(text))).toBe(validateMessage(text));
    const schema = `\ufeff${definition([{ ...HELICAL, windAngle: 'x' }]).replaceAll('\n', '\r\n')}`;
    const [invalid] = windDiagnostics(schema);
    expect(schema.slice(invalid?.from, invalid?.to)).toBe('"x"');
  });
});

describe('schema errors', () => {
  it('mark the invalid value, with the report lines validate prints', () => {
    const text = definition([{ ...HELICAL, windAngle: 'steep' }], {
      mandrelParameters: { diameter: -1, windLength: 500 },
      defaultFeedRate: null,
    });
    expect(marked(text)).toEqual([
      {
        at: '"steep"',
        from: text.indexOf('"steep"'),
        message:
          'layers.0.helical.windAngle\n  Input should be a valid number, unable to parse string as a number [type=float_parsing]',
      },
      {
        at: '-1',
        from: text.indexOf('-1'),
        message: 'mandrelParameters.diameter\n  Input should be greater than 0 [type=greater_than]',
      },
      {
        at: 'null',
        from: text.indexOf('null'),
        message: 'defaultFeedRate\n  Input should be a valid number [type=float_type]',
      },
    ]);
  });

  it('follow the key the validator read: the alias, and the last of duplicate keys', () => {
    const text =
      '{"layers": [{"wind_type": "helical", "windAngle": 45, "patternNumber": 1, "skip_index": 0, "lockDegrees": 180, "leadInMM": 10, "leadOutDegrees": 10}],' +
      ' "mandrel_parameters": {"diameter": 70, "windLength": 500}, "towParameters": {"width": 7, "width": "wide", "thickness": 0.5}, "defaultFeedRate": 9000}';
    const found = marked(text);
    expect(found.map((d) => d.at)).toEqual(['0', '"wide"']);
    expect(found[0]?.message).toBe(
      'layers.0.helical.skip_index\n  Input should be greater than 0 [type=greater_than]',
    );
    expect(found[1]?.from).toBe(text.lastIndexOf('"wide"'));
  });

  it('ignore unknown keys, as validate does', () => {
    const text = definition([{ windType: 'hoop', colour: 'red' }], { notes: { anything: [1, 2] } });
    expect(windDiagnostics(text)).toEqual([]);
  });

  it('mark a missing field at the key of the object that lacks it, or at its opening brace', () => {
    const text = JSON.stringify({
      layers: [{ windType: 'hoop' }],
      mandrelParameters: { diameter: 70 },
      towParameters: { width: 7, thickness: 0.5 },
    });
    expect(marked(text)).toEqual([
      {
        at: '"mandrelParameters"',
        from: text.indexOf('"mandrelParameters"'),
        message: 'mandrelParameters.windLength\n  Field required [type=missing]',
      },
      { at: '{', from: 0, message: 'defaultFeedRate\n  Field required [type=missing]' },
    ]);
    const layer = definition([{ windType: 'helical', windAngle: 45 }]);
    const missing = marked(layer);
    expect(missing).toHaveLength(5);
    for (const d of missing)
      expect(d).toMatchObject({ at: '{', from: layer.indexOf('{', layer.indexOf('[')) });
  });

  it('mark a wrong object or list at its key, a wrong scalar where an object belongs at the scalar', () => {
    const text = definition({ windType: 'hoop' } as unknown as unknown[], { towParameters: 5 });
    expect(marked(text).map((d) => [d.at, d.message])).toEqual([
      ['"layers"', 'layers\n  Input should be a valid list [type=list_type]'],
      [
        '5',
        'towParameters\n  Input should be a valid dictionary or instance of TowParameters [type=model_type]',
      ],
    ]);
  });

  it('mark a layer with a missing or unknown tag at the layer, and the top level when it is no object', () => {
    const text = definition([{ terminal: true }, { windType: 'spiral' }, 7]);
    const found = marked(text);
    expect(found.map((d) => d.at)).toEqual(['{', '{', '7']);
    expect(found[1]?.from).toBe(text.indexOf('{', text.indexOf('"terminal"')));
    expect(found[1]?.message).toContain("Input tag 'spiral' found using 'wind_type' | 'windType'");
    expect(marked('[1, 2]')).toEqual([
      {
        at: '[',
        from: 0,
        message: '  Input should be a valid dictionary or instance of WindDefinition [type=model_type]',
      },
    ]);
  });

  it('mark the version at its value', () => {
    const text = definition([], { schemaVersion: '2.0' });
    expect(marked(text).map((d) => d.at)).toEqual(['"2.0"']);
  });
});

describe('planning checks', () => {
  // One case per check of spec §3 that names a field: the layer's change, the field it marks.
  const CASES: [string, Partial<Helical>, keyof Helical][] = [
    ['2: wind angle range', { windAngle: 95 }, 'windAngle'],
    ['4: skipIndex < patternNumber', { skipIndex: 3 }, 'skipIndex'],
    ['5: coprime', { patternNumber: 26, skipIndex: 2 }, 'skipIndex'],
    ['6: lead-in', { leadInMM: 600 }, 'leadInMM'],
    ['7: circuits divisible', { patternNumber: 3 }, 'patternNumber'],
    ['8: lock condition 1', { patternNumber: 13, lockDegrees: 45 }, 'lockDegrees'],
    ['9: lock condition 2', { lockDegrees: 90 }, 'lockDegrees'],
  ];

  it.each(CASES)('check %s: validate message at the field', (_, change, field) => {
    const text = definition([{ ...HELICAL, ...change }]);
    const value = String(change[field]);
    const from = text.indexOf(`"${field}": ${value}`) + field.length + 4;
    expect(marked(text)).toEqual([{ at: value, from, message: expect.stringMatching(/^Layer 1: /) }]);
  });

  it('every layer shows its own first failure; the first is what validate reports', () => {
    const text = definition([{ ...HELICAL }, ...CASES.map(([, change]) => ({ ...HELICAL, ...change }))]);
    const found = windDiagnostics(text);
    expect(found[0]?.message).toBe(validateMessage(text));
    expect(found.map((d) => d.message.slice(0, d.message.indexOf(':')))).toEqual(
      CASES.map((_, i) => `Layer ${i + 2}`),
    );
    found.forEach((d, i) => {
      const field = CASES[i]?.[2] as string;
      const layer = nthLayer(text, i + 1);
      const key = text.indexOf(`"${field}"`, layer);
      expect(key).toBeLessThan(nthLayer(text, i + 2));
      expect(d.from).toBe(key + field.length + 4);
    });
  });

  it('flag every layer after a terminal hoop at its windType', () => {
    const text = definition([
      { windType: 'hoop', terminal: true },
      { windType: 'skip', mandrelRotation: 90 },
      { windType: 'hoop' },
    ]);
    expect(marked(text)[0]?.at).toBe('"skip"');
    expect(windDiagnostics(text).map((d) => [text.slice(d.from, d.to), d.message])).toEqual([
      ['"skip"', 'Layer 2: terminal layer must be the final entry in the definition'],
      ['"hoop"', 'Layer 3: terminal layer must be the final entry in the definition'],
    ]);
    expect(windDiagnostics(text)[1]?.from).toBe(text.lastIndexOf('"hoop"'));
  });

  it('place a planner message the static checks cannot know (guard 11), at its layer', () => {
    const text = definition([{ windType: 'hoop' }, { windType: 'skip', mandrel_rotation: 5 }]);
    const message =
      'Layer 2: the time or tow estimate is not a finite number; check the mandrel diameter and defaultFeedRate';
    const d = planningDiagnostic(text, message);
    expect(d && text.slice(d.from, d.to)).toBe('"skip"');
    expect(d?.message).toBe(message);
    expect(planningDiagnostic(text, 'Layer 3: no such layer')).toBeNull();
    expect(planningDiagnostic('{', message)).toBeNull();
  });
});

/** Where layer `n` (0-based) starts: its `"windType"` key; past the last layer, the text's end. */
function nthLayer(text: string, n: number): number {
  let at = text.indexOf('"layers"');
  for (let i = 0; i <= n && at >= 0; i++) at = text.indexOf('"windType"', at + 1);
  return at < 0 ? text.length : at;
}

describe('reference definitions', () => {
  const cases = readdirSync(REFERENCE).filter((name) => !name.startsWith('.') && !name.endsWith('.md'));

  it.each(cases)('%s: the diagnostics say what its expected.json says', (name) => {
    const text = readFileSync(join(REFERENCE, name, 'input.wind'), 'utf8');
    const expected = JSON.parse(readFileSync(join(REFERENCE, name, 'expected.json'), 'utf8')) as {
      error?: { detail: string };
    };
    const diagnostics = windDiagnostics(text);
    expect(reportFrom(diagnostics)).toBe(expected.error?.detail.replaceAll('{path}', PATH) ?? null);
  });
});

describe('schema 1.1: cones and vessels', () => {
  const vessel = readFileSync(
    join(import.meta.dirname, '..', '..', 'resources', 'examples', 'vessel.wind'),
    'utf8',
  );
  const cone = readFileSync(
    join(import.meta.dirname, '..', '..', 'resources', 'examples', 'reducing-cone.wind'),
    'utf8',
  );

  it('the examples have no diagnostics', () => {
    expect(windDiagnostics(vessel)).toEqual([]);
    expect(windDiagnostics(cone)).toEqual([]);
  });

  it('a cone or vessel in a 1.0 file is marked at its version', () => {
    const text = cone.replace('"schemaVersion": "1.1"', '"schemaVersion": "1.0"');
    expect(marked(text)).toEqual([
      {
        at: '"1.0"',
        from: text.indexOf('"1.0"'),
        message: expect.stringContaining('cones need schemaVersion "1.1" or later (got "1.0")'),
      },
    ]);
    const unversioned = vessel.replace('"schemaVersion": "1.1",', '');
    expect(marked(unversioned).map((d) => d.at)).toEqual(['{']);
  });

  it('a dome field is marked at its value, a dome lacking its shape at its key', () => {
    const negative = vessel.replace('"polarOpeningDiameter": 40.0', '"polarOpeningDiameter": -40.0');
    expect(marked(negative).map((d) => d.at)).toEqual(['-40.0']);
    const ellipsoid = vessel.replace('"hemispherical"', '"ellipsoidal"');
    expect(marked(ellipsoid)).toEqual([
      {
        at: '"both"',
        from: ellipsoid.indexOf('"both"'),
        message: expect.stringContaining('an ellipsoidal dome needs its aspect'),
      },
    ]);
  });

  it('a vessel planning check is marked at the field (a layer or mandrel one) or dome it names', () => {
    const spacing = vessel.replace('"stationSpacingMM": 1', '"stationSpacingMM": 0.0001');
    expect(marked(spacing).map((d) => d.at)).toEqual(['0.0001']);
    const opening = vessel.replace('"polarOpeningDiameter": 40.0', '"polarOpeningDiameter": 400.0');
    expect(marked(opening).map((d) => d.at)).toEqual(['"both"']);
    const segments = vessel.replace(
      '"windLength": 300.0,',
      '"windLength": 300.0,\n    "meridianSegments": 200000,',
    );
    expect(marked(segments)).toEqual([
      {
        at: '200000',
        from: segments.indexOf('200000'),
        message: expect.stringMatching(/^Layer 2: meridianSegments /),
      },
    ]);
    const steep = cone.replace('"windAngle": 30', '"windAngle": 80');
    expect(marked(steep)).toEqual([
      { at: '80', from: steep.indexOf('80,'), message: expect.stringContaining('is too steep for the cone') },
    ]);
  });
});
