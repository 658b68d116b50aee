// The design studio's state at the Winding page: the working copy (kept while the Viewer tab is
// shown), its analysis, the live plan in the preview worker, the title's unsaved-change marker,
// the guards on close, reload and open, and new / open / save / save as.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { desktopApi, nativeOpener } from '../../../lib/desktop.ts';
import type { PreviewClient } from '../preview/client.ts';
import type { LoadResult, PlanOptionsState } from '../preview/protocol.ts';
import { describeSave, saveProgram } from '../save/save-program.ts';
import { type Analysis, analyse } from './analysis.ts';
import type { Template } from './examples.ts';
import { bytesToSave, type FormEdit, isDirty, type WorkingCopy, workingCopyReducer } from './working-copy.ts';

const READ_CHUNK = 4 * 1024 * 1024;

export interface DesignPreview {
  /** The last plan that succeeded: what the views draw. */
  good: Extract<LoadResult, { ok: true }> | null;
  /** The latest answer, when it is a failure (the views then show `good`, dimmed). */
  failure: Extract<LoadResult, { ok: false }> | null;
  planning: boolean;
}

export interface DesignControls {
  copy: WorkingCopy | null;
  analysis: Analysis | null;
  dirty: boolean;
  preview: DesignPreview;
  /** What the last open or save did, or why it failed. */
  note: string | null;
  edit(edit: FormEdit, typing?: string): void;
  editSource(text: string): void;
  undo(): void;
  redo(): void;
  startNew(template: Template): void;
  /** Opens a File (browser picker). */
  openFile(file: File): Promise<void>;
  /** The desktop app's native dialog; undefined in a browser. */
  openNative: (() => Promise<void>) | undefined;
  openPath(path: string): Promise<void>;
  save(as: boolean): Promise<void>;
}

const DISCARD = (name: string) => `Discard the unsaved changes to ${name}?`;

/**
 * `onPlanned` hears every successful plan of the working copy: the worker now holds it as the open
 * program, so the page shows it in the Viewer too.
 */
export function useDesign(
  client: PreviewClient,
  options: PlanOptionsState,
  onPlanned: (result: LoadResult) => void,
  /** Called when a definition the app was launched with opens here. */
  onLaunch?: () => void,
): DesignControls {
  const [copy, dispatch] = useReducer(workingCopyReducer, null);
  const [preview, setPreview] = useState<DesignPreview>({ good: null, failure: null, planning: false });
  const [note, setNote] = useState<string | null>(null);
  const copyRef = useRef(copy);
  copyRef.current = copy;
  const onPlannedRef = useRef(onPlanned);
  onPlannedRef.current = onPlanned;
  const onLaunchRef = useRef(onLaunch);
  onLaunchRef.current = onLaunch;

  const text = copy?.text ?? null;
  const name = copy?.name ?? '';
  const analysis = useMemo(() => (text === null ? null : analyse(text, name)), [text, name]);
  const dirty = copy !== null && isDirty(copy);

  // Live plan: every change of the text (or the plan options), at once. No pause to wait for more
  // keys: the worker drops a plan a newer edit overtakes at its next slice, and the budget from a
  // keystroke to both views redrawn is 150 ms in all.
  useEffect(() => {
    if (text === null) return;
    let live = true;
    setPreview((current) => ({ ...current, planning: true }));
    client.planText(name, text, options).then(
      (result) => {
        if (!live || 'cancelled' in result) return;
        if (result.ok) {
          setPreview({ good: result, failure: null, planning: false });
          onPlannedRef.current(result);
        } else setPreview((current) => ({ good: current.good, failure: result, planning: false }));
      },
      (error: unknown) => {
        if (!live) return;
        const message = error instanceof Error ? error.message : String(error);
        setPreview((current) => ({
          good: current.good,
          failure: { ok: false, kind: 'wind', name, error: { level: 'planning', message } },
          planning: false,
        }));
      },
    );
    return () => {
      live = false;
    };
  }, [client, text, name, options]);

  // The title says when there is something to save.
  useEffect(() => {
    if (copy === null) return;
    const before = document.title;
    document.title = `${dirty ? '• ' : ''}${copy.name}${dirty ? ' (unsaved)' : ''} — Towpath`;
    return () => {
      document.title = before;
    };
  }, [copy, dirty]);

  // Closing the window or reloading with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return;
    const guard = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Chromium before 119 and Electron's older shells look at returnValue.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', guard);
    return () => window.removeEventListener('beforeunload', guard);
  }, [dirty]);

  /** Whether what is open may be replaced: nothing unsaved, or the user agrees to lose it. */
  const mayReplace = useCallback(() => {
    const current = copyRef.current;
    return current === null || !isDirty(current) || window.confirm(DISCARD(current.name));
  }, []);

  const load = useCallback((loaded: { name: string; path: string | null; bytes: Uint8Array }) => {
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(loaded.bytes);
    dispatch({ type: 'load', name: loaded.name, path: loaded.path, text, bytes: loaded.bytes });
    setPreview({ good: null, failure: null, planning: false });
    setNote(null);
  }, []);

  const startNew = useCallback(
    (template: Template) => {
      if (!mayReplace()) return;
      dispatch({ type: 'load', name: template.name, path: null, text: template.text, bytes: null });
      setPreview({ good: null, failure: null, planning: false });
      setNote(null);
    },
    [mayReplace],
  );

  const openFile = useCallback(
    async (file: File) => {
      if (!mayReplace()) return;
      try {
        load({ name: file.name, path: null, bytes: new Uint8Array(await file.arrayBuffer()) });
      } catch (error) {
        setNote(`Could not open ${file.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    [load, mayReplace],
  );

  const openPath = useCallback(
    async (path: string) => {
      const api = desktopApi();
      const readFile = api?.readFile;
      if (!readFile || !mayReplace()) return;
      const fileName = path.split(/[\\/]/).pop() ?? path;
      try {
        const pieces: Uint8Array[] = [];
        let size = 0;
        let total = Number.POSITIVE_INFINITY;
        while (size < total) {
          const chunk = await readFile(path, size, READ_CHUNK);
          total = chunk.size;
          if (chunk.bytes.length === 0) break;
          pieces.push(chunk.bytes);
          size += chunk.bytes.length;
        }
        const bytes = new Uint8Array(size);
        let at = 0;
        for (const piece of pieces) {
          bytes.set(piece, at);
          at += piece.length;
        }
        load({ name: fileName, path, bytes });
      } catch (error) {
        setNote(`Could not open ${fileName}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    [load, mayReplace],
  );

  const openNative = nativeOpener(openPath);

  // A definition the app was launched with (a double-clicked .wind file) opens here.
  useEffect(() => {
    const launch = desktopApi()?.launchFiles;
    if (!launch) return;
    void launch().then((paths) => {
      const first = paths[0];
      if (first === undefined) return;
      onLaunchRef.current?.();
      void openPath(first);
    });
  }, [openPath]);

  const save = useCallback(async (as: boolean) => {
    const current = copyRef.current;
    if (current === null) return;
    try {
      const blob = new Blob([bytesToSave(current) as Uint8Array<ArrayBuffer>], { type: 'application/json' });
      const outcome = await saveProgram(blob, current.path ?? current.name, desktopApi(), {
        kind: 'wind',
        ...(as || current.path === null ? {} : { current: current.path }),
      });
      if (outcome.kind === 'canceled') return;
      const path = outcome.kind === 'saved' ? outcome.path : current.path;
      const savedName = path === null ? current.name : (path.split(/[\\/]/).pop() ?? current.name);
      dispatch({ type: 'saved', name: savedName, path, text: current.text });
      setNote(describeSave(outcome));
    } catch (error) {
      setNote(`Could not save the definition: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, []);

  return {
    copy,
    analysis,
    dirty,
    preview,
    note,
    edit: (edit, typing) => dispatch({ type: 'edit', edit, typing, at: performance.now() }),
    editSource: (source) => dispatch({ type: 'source', text: source, at: performance.now() }),
    undo: () => dispatch({ type: 'undo' }),
    redo: () => dispatch({ type: 'redo' }),
    startNew,
    openFile,
    openNative,
    openPath,
    save,
  };
}
