// The contract between the Electron preload script and the renderer. Types only: the renderer
// imports it with `import type`, so nothing of Electron ends up in the web bundle.

/** File kinds the native open dialog offers. */
export type OpenFileKind = 'wind' | 'gcode';

export type OpenFileResult = { canceled: true } | { canceled: false; path: string };

export type SaveFileResult = { canceled: true } | { canceled: false; path: string };

export interface RecentFile {
  kind: OpenFileKind;
  /** Absolute path. */
  path: string;
}

/**
 * What the application menu asks of the page: open a file the operator chose (from a dialog or
 * Open Recent), or save the G-code on screen (the page then calls `saveFile` for the path).
 */
export type MenuCommand = { type: 'open-file'; kind: OpenFileKind; path: string } | { type: 'save-gcode' };

/** What `window.towpath` holds inside the desktop app; absent in a plain browser. */
export interface TowpathDesktopApi {
  /** Towpath version of the desktop shell. */
  readonly version: string;
  /** Shows the native open-file dialog for one file of the given kind; resolves with its absolute path. */
  openFile(kind: OpenFileKind): Promise<OpenFileResult>;
  /**
   * Shows the native save dialog for a G-code program or a winding definition; `suggestedPath`
   * pre-fills it. A definition's `current` path (one the operator opened or saved this session)
   * is saved over without a dialog: the page's "Save" after "Save as" or an open.
   */
  saveFile(options: SaveFileOptions): Promise<SaveFileResult>;
  /**
   * The `.wind` files given on the app's command line (a double-click on an associated file), once:
   * the Winding area opens them when it starts. Optional: older shells lack it.
   */
  launchFiles?(): Promise<string[]>;
  /** Files opened lately, newest first. */
  recentFiles(): Promise<RecentFile[]>;
  /** Listens for menu commands; returns the function that stops listening. */
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
  /**
   * Reads up to `length` bytes at `offset` of a file the operator opened (open dialog, menu or
   * recent files; any other path is refused), with the file's size: the Winding area reads big
   * programs in chunks. Optional: shells older than the Winding area lack it.
   */
  readFile?(path: string, offset: number, length: number): Promise<FileChunk>;
  /**
   * Writes the file the operator just chose in the save dialog, piece by piece in order (`offset` 0
   * starts it afresh); the last piece puts it in place whole, so a failed save never leaves half a
   * program under the chosen name. Any other path is refused. Optional: older shells lack it.
   */
  writeFile?(path: string, bytes: Uint8Array, at: { offset: number; last: boolean }): Promise<void>;
}

export interface SaveFileOptions {
  kind: 'gcode' | 'wind';
  suggestedPath?: string;
  current?: string;
}

export interface FileChunk {
  bytes: Uint8Array;
  size: number;
}

export const READ_FILE_CHANNEL = 'towpath:read-file';
/** The most a single readFile call returns. */
export const READ_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const WRITE_FILE_CHANNEL = 'towpath:write-file';
/** The most a single writeFile call takes. */
export const WRITE_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const OPEN_FILE_CHANNEL = 'towpath:open-file';
export const SAVE_FILE_CHANNEL = 'towpath:save-file';
export const LAUNCH_FILES_CHANNEL = 'towpath:launch-files';
export const RECENT_FILES_CHANNEL = 'towpath:recent-files';
export const MENU_COMMAND_CHANNEL = 'towpath:menu-command';
