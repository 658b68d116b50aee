// The working copy's rules, without React: what each read, edit, save, conflict, reload and restore
// leaves behind, so that nothing is dropped unless the person chose it.
import { describe, expect, it } from 'vitest';
import type { DashboardRecord } from '../useDashboard.ts';
import { EMPTY_COPY, type WorkingCopy, type WorkingCopyAction, workingCopy } from './useWorkingCopy.ts';

function record(documentRevision: number, title = `Line ${documentRevision}`): DashboardRecord {
  return {
    _id: 'd1',
    title,
    version: 'towpath 0.1.0',
    image: null,
    datasources: [],
    columns: 3,
    width: 'md',
    panes: [],
    settings: {},
    visibility: 'PRIVATE' as DashboardRecord['visibility'],
    shareToken: null,
    shareTokenVersion: 0,
    documentRevision,
    isOwner: true,
    canEdit: true,
    canManageSharing: true,
    user: null,
    createdAt: '2026-11-27T10:00:00.000Z',
    updatedAt: `2026-11-27T10:0${documentRevision}:00.000Z`,
  };
}

type Draft = NonNullable<WorkingCopy['draft']>;
const run = (...actions: WorkingCopyAction[]) => actions.reduce(workingCopy, EMPTY_COPY);
const loaded = run({ type: 'read', dashboard: record(2) });
const edited = (state: WorkingCopy, title: string) =>
  workingCopy(state, { type: 'edited', draft: { ...(state.draft as Draft), title } });

describe('the working copy', () => {
  it('takes the first read as base and draft, clean', () => {
    expect(loaded.base?.documentRevision).toBe(2);
    expect(loaded.draft?.title).toBe('Line 2');
    expect(loaded.dirty).toBe(false);
    expect(loaded.incoming).toBeNull();
  });

  it('marks edits dirty and clears the last notice unless the edit brings one', () => {
    const saved = workingCopy(loaded, { type: 'saved', saved: record(3) });
    expect(saved.notice).toBe('Saved revision 3');
    const changed = edited(saved, 'Renamed');
    expect(changed).toMatchObject({ dirty: true, notice: null });
    expect(changed.draft?.title).toBe('Renamed');
    const imported = workingCopy(changed, {
      type: 'edited',
      draft: loaded.draft as Draft,
      notice: 'Imported',
    });
    expect(imported.notice).toBe('Imported');
  });

  it("announces someone else's newer save once, keeps the draft, and learns who made it", () => {
    const mine = edited(loaded, 'Mine');
    const told = workingCopy(mine, { type: 'read', dashboard: record(3) });
    expect(told.incoming).toEqual({ revision: 3, at: '2026-11-27T10:03:00.000Z', who: null });
    expect(told.draft?.title).toBe('Mine');
    expect(told.dirty).toBe(true);
    const named = workingCopy(told, { type: 'author', who: 'ada@example.com' });
    expect(named.incoming?.who).toBe('ada@example.com');
    expect(workingCopy(named, { type: 'read', dashboard: record(3) })).toBe(named);
    expect(workingCopy(named, { type: 'keepEditing' }).incoming).toBeNull();
  });

  it('ignores reads that are not newer than the base, and an author with no save to name', () => {
    expect(workingCopy(loaded, { type: 'read', dashboard: record(2, 'Same') })).toBe(loaded);
    expect(workingCopy(loaded, { type: 'author', who: 'x' })).toBe(loaded);
  });

  it('holds a conflict until reload or a successful overwrite, announcing nothing meanwhile', () => {
    const mine = edited(loaded, 'Mine');
    const conflicted = workingCopy(workingCopy(mine, { type: 'read', dashboard: record(3) }), {
      type: 'conflicted',
      revision: 3,
    });
    expect(conflicted).toMatchObject({ conflict: 3, incoming: null, dirty: true });
    expect(workingCopy(conflicted, { type: 'read', dashboard: record(4) }).incoming).toBeNull();

    const overwritten = workingCopy(conflicted, { type: 'saved', saved: record(4, 'Mine') });
    expect(overwritten).toMatchObject({ conflict: null, dirty: false, notice: 'Saved revision 4' });
    expect(overwritten.draft?.title).toBe('Mine');

    const reloaded = workingCopy(conflicted, { type: 'reloaded', latest: record(3, 'Theirs') });
    expect(reloaded).toMatchObject({
      conflict: null,
      dirty: false,
      problem: null,
      notice: 'Reloaded revision 3',
    });
    expect(reloaded.draft?.title).toBe('Theirs');
  });

  it('keeps the draft and says why when a save fails, clearing that when the next save starts', () => {
    const failed = workingCopy(edited(loaded, 'Mine'), {
      type: 'problem',
      problem: 'title must be 1–200 characters',
    });
    expect(failed).toMatchObject({ dirty: true, problem: 'title must be 1–200 characters' });
    expect(failed.draft?.title).toBe('Mine');
    expect(workingCopy(failed, { type: 'saving' }).problem).toBeNull();
  });

  it('takes a restored revision as the new base and draft', () => {
    const restored = workingCopy(edited(loaded, 'Mine'), {
      type: 'restored',
      restored: record(5, 'Old title'),
    });
    expect(restored).toMatchObject({ dirty: false, incoming: null, notice: 'Restored as revision 5' });
    expect(restored.base?.documentRevision).toBe(5);
    expect(restored.draft?.title).toBe('Old title');
  });
});
