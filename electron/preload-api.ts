// The contract between the Electron preload script and the renderer. Types only: the renderer
// imports it with `import type`, so nothing of Electron ends up in the web bundle.

/** File kinds the native open dialog offers; `program` offers both. */
export type OpenFileKind = 'wind' | 'gcode' | 'program';

export type OpenFileResult = { canceled: true } | { canceled: false; path: string };

/** What `window.towpath` holds inside the desktop app; absent in a plain browser. */
export interface TowpathDesktopApi {
  /** Towpath version of the desktop shell. */
  readonly version: string;
  /** Shows the native open-file dialog for one file of the given kind; resolves with its absolute path. */
  openFile(kind: OpenFileKind): Promise<OpenFileResult>;
  /**
   * Reads up to `length` bytes at `offset` of a file the open dialog returned in this session (any
   * other path is refused), with the file's size: the Winding area reads big programs in chunks.
   * Optional: shells older than the Winding area lack it.
   */
  readFile?(path: string, offset: number, length: number): Promise<FileChunk>;
}

export interface FileChunk {
  bytes: Uint8Array;
  size: number;
}

export const READ_FILE_CHANNEL = 'towpath:read-file';
/** The most a single readFile call returns. */
export const READ_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const OPEN_FILE_CHANNEL = 'towpath:open-file';
