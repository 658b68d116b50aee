// A form edit that adds what schema 1.1 brought (a cone's end diameter, domes, a geodesic layer,
// the machine section) to a 1.0 definition declares 1.1 in the same edit: one undo step takes
// both back, and a definition already at 1.1 or later, or one the edit leaves at 1.0's features,
// keeps its version.
import { describe, expect, it } from 'vitest';
import { analyse } from './analysis.ts';
import { JsonNumber } from './document.ts';
import { newLayer } from './new-layer.ts';
import { type FormEdit, loadedCopy, type WorkingCopy, workingCopyReducer } from './working-copy.ts';

const cylinder = (version: string | null) =>
  `${JSON.stringify(
    {
      ...(version === null ? {} : { schemaVersion: version }),
      layers: [{ windType: 'hoop' }],
      mandrelParameters: { diameter: 98, windLength: 120 },
      towParameters: { width: 6, thickness: 0.5 },
      defaultFeedRate: 9000,
    },
    null,
    2,
  )}\n`;

const mm = (value: number) => new JsonNumber(value, null);

const EDITS: Record<string, FormEdit> = {
  'a cone end diameter': {
    kind: 'field',
    place: ['mandrelParameters'],
    field: { key: 'endDiameter', alias: 'end_diameter' },
    value: mm(54),
  },
  domes: {
    kind: 'path',
    path: [
      { key: 'mandrelParameters', alias: 'mandrel_parameters' },
      { key: 'domes', alias: null },
    ],
    value: new Map([
      [
        'both',
        new Map<string, JsonNumber | string>([
          ['type', 'hemispherical'],
          ['polarOpeningDiameter', mm(40)],
        ]),
      ],
    ]),
  },
  'a geodesic layer': { kind: 'layers', edit: { kind: 'add', layer: newLayer('geodesic', null) } },
  'the machine section': {
    kind: 'field',
    place: ['machine'],
    field: { key: 'carriageMax', alias: 'carriage_max' },
    value: mm(400),
  },
};

const edit = (copy: WorkingCopy, change: FormEdit) =>
  workingCopyReducer(copy, { type: 'edit', edit: change }) as WorkingCopy;

describe('schemaVersion follows the features a form adds', () => {
  for (const [what, change] of Object.entries(EDITS)) {
    it(`adding ${what} to a 1.0 definition declares 1.1 in the same undo step`, () => {
      const opened = loadedCopy('part.wind', cylinder('1.0'));
      const edited = edit(opened, change);
      expect(JSON.parse(edited.text).schemaVersion).toBe('1.1');
      expect(edited.past).toEqual([opened.text]);
      expect(workingCopyReducer(edited, { type: 'undo' })?.text).toBe(opened.text);
    });
  }

  it('the cone built from a 1.0 cylinder validates without touching the version', () => {
    const cone = edit(loadedCopy('part.wind', cylinder('1.0')), EDITS['a cone end diameter'] as FormEdit);
    const analysis = analyse(cone.text, 'part.wind');
    expect(analysis.schemaReport).toBeNull();
    expect(analysis.definition?.mandrelParameters.endDiameter).toBe(54);
  });

  it('a definition without a version gets 1.1 as its first key', () => {
    const edited = edit(loadedCopy('part.wind', cylinder(null)), EDITS.domes as FormEdit);
    expect(Object.keys(JSON.parse(edited.text))[0]).toBe('schemaVersion');
    expect(JSON.parse(edited.text).schemaVersion).toBe('1.1');
  });

  it('keeps a later version, and a 1.0 definition whose edit adds nothing of 1.1', () => {
    const later = edit(loadedCopy('part.wind', cylinder('1.3')), EDITS.domes as FormEdit);
    expect(JSON.parse(later.text).schemaVersion).toBe('1.3');
    const plain = edit(loadedCopy('part.wind', cylinder('1.0')), {
      kind: 'field',
      place: ['mandrelParameters'],
      field: { key: 'diameter', alias: null },
      value: mm(80),
    });
    expect(JSON.parse(plain.text).schemaVersion).toBe('1.0');
  });

  it('leaves a version the user set back to 1.0 alone once the feature is there', () => {
    // The validator's message at schemaVersion then says why; the form does not fight the user.
    const cone = edit(loadedCopy('part.wind', cylinder('1.0')), EDITS['a cone end diameter'] as FormEdit);
    const back = edit(cone, {
      kind: 'field',
      place: [],
      field: { key: 'schemaVersion', alias: null },
      value: '1.0',
    });
    expect(JSON.parse(back.text).schemaVersion).toBe('1.0');
    expect(analyse(back.text, 'part.wind').fieldErrors.get('schemaVersion')?.[0]).toMatch(
      /cones need schemaVersion "1.1"/,
    );
  });
});
