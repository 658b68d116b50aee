// The working copy: one history over form and source edits, a typed value one undo step, unknown
// keys kept, and the opened bytes written back while the text is unchanged.
import { describe, expect, it } from 'vitest';
import { JsonNumber } from './document.ts';
import {
  bytesToSave,
  isDirty,
  loadedCopy,
  TYPING_PAUSE_MS,
  type WorkingCopy,
  type WorkingCopyAction,
  workingCopyReducer,
} from './working-copy.ts';

const text =
  '\ufeff{"layers": [{"windType": "hoop", "terminal": false, "note": "keep me"}],\r\n' +
  ' "mandrel_parameters": {"diameter": 70, "wind_length": 500},\r\n' +
  ' "towParameters": {"width": 7, "thickness": 0.5}, "defaultFeedRate": 9000, "x-shop": {"id": 7}}';

function run(copy: WorkingCopy, ...actions: WorkingCopyAction[]): WorkingCopy {
  return actions.reduce((current, action) => workingCopyReducer(current, action) as WorkingCopy, copy);
}

const setDiameter = (value: number | undefined): WorkingCopyAction => ({
  type: 'edit',
  edit: {
    kind: 'field',
    place: ['mandrelParameters'],
    field: { key: 'diameter', alias: null },
    value: value === undefined ? undefined : new JsonNumber(value, null),
  },
  typing: 'mandrelParameters.diameter',
});

describe('working copy', () => {
  const bytes = new TextEncoder().encode(text);
  const opened = loadedCopy(
    'part.wind',
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
    null,
    bytes,
  );

  it('saves the opened bytes while unedited, and again after an edit is undone', () => {
    expect(bytesToSave(opened)).toBe(bytes);
    const edited = run(opened, setDiameter(80));
    expect(isDirty(edited)).toBe(true);
    const undone = run(edited, { type: 'undo' });
    expect(isDirty(undone)).toBe(false);
    expect(bytesToSave(undone)).toEqual(bytes);
  });

  it('keeps unknown keys and the aliases a file uses when a form edits it', () => {
    const edited = run(opened, setDiameter(80));
    const json = JSON.parse(edited.text);
    expect(json['x-shop']).toEqual({ id: 7 });
    expect(json.layers[0].note).toBe('keep me');
    // The file spells the section mandrel_parameters: the edit goes there, not to a new key.
    expect(json.mandrel_parameters).toEqual({ diameter: 80, wind_length: 500 });
    expect(json).not.toHaveProperty('mandrelParameters');
    expect(edited.text).toContain('"diameter": 80.0');
  });

  it('makes one undo step of a typed value, and undoes and redoes form and source edits alike', () => {
    const typed = run(opened, setDiameter(8), setDiameter(80), setDiameter(800));
    expect(typed.past).toHaveLength(1);
    // After a pause, typing there again is a step of its own.
    const later = run(typed, { ...setDiameter(900), at: TYPING_PAUSE_MS } as WorkingCopyAction);
    expect(later.past).toHaveLength(2);
    const sourced = run(typed, { type: 'source', text: '{"layers": []}' });
    expect(sourced.text).toBe('{"layers": []}');
    const back = run(sourced, { type: 'undo' });
    expect(JSON.parse(back.text).mandrel_parameters.diameter).toBe(800);
    expect(run(back, { type: 'undo' }).text).toBe(opened.text);
    expect(run(back, { type: 'undo' }, { type: 'redo' }, { type: 'redo' }).text).toBe('{"layers": []}');
    // A new edit after an undo drops what could have been redone.
    const branched = run(back, { type: 'undo' }, setDiameter(60));
    expect(branched.future).toEqual([]);
  });

  it('refuses form edits while the text is not JSON, and leaves the text alone', () => {
    const broken = run(opened, { type: 'source', text: '{"layers": [' });
    expect(run(broken, setDiameter(80))).toBe(broken);
  });

  it('marks what a save wrote as saved, not edits made while it ran', () => {
    const edited = run(opened, setDiameter(80));
    const later = run(edited, setDiameter(90));
    const saved = run(later, { type: 'saved', name: 'part.wind', path: null, text: edited.text });
    expect(isDirty(saved)).toBe(true);
    expect(isDirty(run(saved, { type: 'saved', name: 'part.wind', path: null, text: saved.text }))).toBe(
      false,
    );
  });
});
