// The open program of the Winding area: opening (picker, drop, recent, desktop dialog), the plan
// options, and the worker that holds the program.
import { useCallback, useEffect, useRef, useState } from 'react';
import { desktopApi, nativeOpener } from '../../lib/desktop.ts';
import { PreviewClient, type ProgressReport } from './preview/client.ts';
import type { LoadResult, PlanOptionsState } from './preview/protocol.ts';
import { listRecent, type RecentEntry, rememberRecent } from './recent.ts';
import { describeSave, gcodeName, saveProgram } from './save/save-program.ts';

export type OpenState =
  | { phase: 'empty' }
  | { phase: 'loading'; name: string; progress: ProgressReport | null }
  | { phase: 'loaded'; result: LoadResult }
  | { phase: 'failed'; name: string; message: string };

const DEFAULT_OPTIONS: PlanOptionsState = { axisFormat: 'xab', verbose: false };
/** Bytes the desktop app reads per request through its preload API. */
const DESKTOP_CHUNK = 4 * 1024 * 1024;

export interface ProgramControls {
  state: OpenState;
  options: PlanOptionsState;
  recent: RecentEntry[];
  client: PreviewClient;
  /** Increases with every successful load, so views can reset. */
  generation: number;
  openFile(file: File): Promise<void>;
  openRecent(entry: RecentEntry): Promise<void>;
  /** The desktop app's native dialog; undefined in a browser. */
  openNative: (() => Promise<void>) | undefined;
  setOptions(options: PlanOptionsState): Promise<void>;
  /** Saves the open program's G-code: the desktop app's native dialog, else a download. */
  saveGcode(): Promise<void>;
  /** What the last save did ("Saved to …", or why it failed). */
  saveNote: string | null;
  /** Shows a plan the worker already holds (the design studio's), as if it had been opened. */
  adopt(result: LoadResult): void;
}

export function useProgram(): ProgramControls {
  const clientRef = useRef<PreviewClient | null>(null);
  if (clientRef.current === null) clientRef.current = new PreviewClient();
  const client = clientRef.current;
  const [state, setState] = useState<OpenState>({ phase: 'empty' });
  const [options, setOptionsState] = useState<PlanOptionsState>(DEFAULT_OPTIONS);
  const [recent, setRecent] = useState<RecentEntry[]>([]);
  const [generation, setGeneration] = useState(0);
  const [saveNote, setSaveNote] = useState<string | null>(null);
  const optionsRef = useRef(options);
  optionsRef.current = options;

  useEffect(() => {
    listRecent().then(setRecent, () => setRecent([]));
  }, []);
  useEffect(() => () => void client.close(), [client]);

  const settle = useCallback(async (name: string, load: () => Promise<LoadResult>) => {
    setSaveNote(null);
    try {
      const result = await load();
      setState({ phase: 'loaded', result });
      if (result.ok) setGeneration((g) => g + 1);
    } catch (error) {
      setState({ phase: 'failed', name, message: error instanceof Error ? error.message : String(error) });
    }
  }, []);

  const progressFor = useCallback(
    (name: string) => (progress: ProgressReport) => setState({ phase: 'loading', name, progress }),
    [],
  );

  const openFile = useCallback(
    async (file: File) => {
      setState({ phase: 'loading', name: file.name, progress: null });
      await settle(file.name, () =>
        client.openBlob(file.name, file, optionsRef.current, progressFor(file.name)),
      );
      await rememberRecent({ name: file.name, size: file.size, openedAt: Date.now(), file }).catch(() => {});
      setRecent(await listRecent().catch(() => []));
    },
    [client, settle, progressFor],
  );

  const openPath = useCallback(
    async (path: string) => {
      const api = desktopApi();
      if (!api?.readFile) return;
      const name = path.split(/[\\/]/).pop() ?? path;
      setState({ phase: 'loading', name, progress: null });
      const readFile = api.readFile;
      await settle(name, async () => {
        const first = await readFile(path, 0, DESKTOP_CHUNK);
        async function* chunks() {
          yield first.bytes;
          let offset = first.bytes.length;
          while (offset < first.size) {
            const next = await readFile(path, offset, DESKTOP_CHUNK);
            if (next.bytes.length === 0) break;
            offset += next.bytes.length;
            yield next.bytes;
          }
        }
        return client.openChunks(name, first.size, chunks(), optionsRef.current, progressFor(name));
      });
      await rememberRecent({ name, size: 0, openedAt: Date.now(), path }).catch(() => {});
      setRecent(await listRecent().catch(() => []));
    },
    [client, settle, progressFor],
  );

  const openRecent = useCallback(
    async (entry: RecentEntry) => {
      if (entry.file) await openFile(entry.file);
      else if (entry.path) await openPath(entry.path);
    },
    [openFile, openPath],
  );

  const openNative = nativeOpener(openPath);

  const loaded = state.phase === 'loaded' && state.result.ok ? state.result : null;
  const saveGcode = useCallback(async () => {
    if (!loaded) {
      setSaveNote('Nothing to save: open a definition or G-code program first.');
      return;
    }
    try {
      const blob = await client.programBlob();
      if (!blob) throw new Error('the program is no longer open');
      setSaveNote(describeSave(await saveProgram(blob, gcodeName(loaded.name), desktopApi())));
    } catch (error) {
      setSaveNote(`Could not save the G-code: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, [client, loaded]);
  const saveRef = useRef(saveGcode);
  saveRef.current = saveGcode;

  // The desktop app's File menu: Open and Open Recent open into this page, Save G-code saves from it.
  useEffect(() => {
    const api = desktopApi();
    if (!api?.onMenuCommand) return;
    return api.onMenuCommand((command) => {
      if (command.type === 'open-file' && api.readFile) void openPath(command.path);
      else if (command.type === 'save-gcode') void saveRef.current();
    });
  }, [openPath]);

  const setOptions = useCallback(
    async (next: PlanOptionsState) => {
      setOptionsState(next);
      optionsRef.current = next;
      if (state.phase !== 'loaded' || state.result.kind !== 'wind') return;
      const name = state.result.name;
      if (!state.result.ok && state.result.error.level === 'file') return;
      setState({ phase: 'loading', name, progress: null });
      await settle(name, () => client.replan(next, progressFor(name)));
    },
    [client, state, settle, progressFor],
  );

  const adopt = useCallback((result: LoadResult) => {
    setSaveNote(null);
    setState({ phase: 'loaded', result });
    if (result.ok) setGeneration((g) => g + 1);
  }, []);

  return {
    adopt,
    state,
    options,
    recent,
    client,
    generation,
    openFile,
    openRecent,
    openNative,
    setOptions,
    saveGcode,
    saveNote,
  };
}
