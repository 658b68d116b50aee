// The contract between the Electron preload script and the renderer. Types only: the renderer
// imports it with `import type`, so nothing of Electron ends up in the web bundle.

/** File kinds the native open dialog offers. */
export type OpenFileKind = 'wind' | 'gcode';

export type OpenFileResult = { canceled: true } | { canceled: false; path: string };

/** What `window.towpath` holds inside the desktop app; absent in a plain browser. */
export interface TowpathDesktopApi {
  /** Towpath version of the desktop shell. */
  readonly version: string;
  /** Shows the native open-file dialog for one file of the given kind; resolves with its absolute path. */
  openFile(kind: OpenFileKind): Promise<OpenFileResult>;
}

export const OPEN_FILE_CHANNEL = 'towpath:open-file';
