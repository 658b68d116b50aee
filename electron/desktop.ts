import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import { ConfigError, type Env, loadConfig } from '../server/config.ts';
import { StartupError } from '../server/errors.ts';
import { startWorkstation, type Workstation } from '../server/main.ts';
import {
  type FileChunk,
  OPEN_FILE_CHANNEL,
  type OpenFileKind,
  type OpenFileResult,
  READ_FILE_CHANNEL,
  READ_FILE_MAX_BYTES,
} from './preload-api.ts';
import { createMainWindow, hardenSession } from './window.ts';

const FILE_FILTERS: Record<OpenFileKind, Electron.FileFilter> = {
  wind: { name: 'Winding definitions', extensions: ['wind'] },
  gcode: { name: 'G-code programs', extensions: ['gcode', 'nc', 'ngc'] },
  program: { name: 'Winding definitions and G-code', extensions: ['wind', 'gcode', 'nc', 'ngc'] },
};
const DIALOG_TITLES: Record<OpenFileKind, string> = {
  wind: 'Open winding definition',
  gcode: 'Open G-code program',
  program: 'Open winding definition or G-code',
};

/** Files the user chose in the open dialog: the only ones the renderer may read. */
const chosenFiles = new Set<string>();

export interface DesktopOptions {
  env?: Env;
  /** The folder holding `dist/` (the packaged app or the checkout). */
  appRoot?: string;
}

export interface Desktop {
  workstation: Workstation;
  window: BrowserWindow;
}

/**
 * The Electron main process: one instance per user, the core embedded in-process, one window on the
 * LAN door. Quitting stops the core before the process exits.
 */
export async function startDesktop({
  env,
  appRoot = app.getAppPath(),
}: DesktopOptions = {}): Promise<Desktop | undefined> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    return fail(error);
  }
  // One data dir for the desktop app and `towpath serve`: Electron's userData folder is pointed at
  // it, and Chromium's own profile files are kept in a subfolder so they do not mix with ours.
  app.setPath('userData', config.dataDir);
  app.setPath('sessionData', join(config.dataDir, 'electron-session'));

  await app.whenReady();
  hardenSession(session.defaultSession);

  let workstation: Workstation;
  try {
    workstation = await startWorkstation({
      ...config,
      dataDir: app.getPath('userData'),
      rendererDir: join(appRoot, 'dist', 'renderer'),
      resourcesDir: join(appRoot, 'resources'),
    });
  } catch (error) {
    return fail(error);
  }

  ipcMain.handle(OPEN_FILE_CHANNEL, (event, kind: unknown) => openFile(event.sender, kind));
  ipcMain.handle(READ_FILE_CHANNEL, (_event, path: unknown, offset: unknown, length: unknown) =>
    readChosenFile(path, offset, length),
  );

  const window = createMainWindow(workstation.urls.lan, join(appRoot, 'dist', 'electron', 'preload.cjs'));

  app.on('second-instance', () => {
    if (window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());

  let coreStopped = false;
  app.on('before-quit', (event) => {
    if (coreStopped) return;
    // Hold the quit until the core has closed its doors (and, later, its serial port).
    event.preventDefault();
    void workstation.stop().finally(() => {
      coreStopped = true;
      app.quit();
    });
  });

  return { workstation, window };
}

async function openFile(sender: Electron.WebContents, kind: unknown): Promise<OpenFileResult> {
  // The renderer is untrusted input like any client: only the known kinds are accepted.
  if (kind !== 'wind' && kind !== 'gcode' && kind !== 'program')
    throw new Error(`Unknown file kind: ${String(kind)}`);
  const owner = BrowserWindow.fromWebContents(sender);
  const options: Electron.OpenDialogOptions = {
    title: DIALOG_TITLES[kind],
    properties: ['openFile'],
    filters: [FILE_FILTERS[kind], { name: 'All files', extensions: ['*'] }],
  };
  const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
  const path = result.filePaths[0];
  if (result.canceled || !path) return { canceled: true };
  chosenFiles.add(path);
  return { canceled: false, path };
}

async function readChosenFile(path: unknown, offset: unknown, length: unknown): Promise<FileChunk> {
  if (typeof path !== 'string' || !chosenFiles.has(path))
    throw new Error('Only a file chosen in the open dialog can be read');
  if (!Number.isSafeInteger(offset) || (offset as number) < 0)
    throw new Error('offset must be a whole number ≥ 0');
  if (!Number.isSafeInteger(length) || (length as number) < 0)
    throw new Error('length must be a whole number ≥ 0');
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(
      Math.min(length as number, READ_FILE_MAX_BYTES, Math.max(0, size - (offset as number))),
    );
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset as number);
    return { bytes: bytes.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}

function fail(error: unknown): undefined {
  const message =
    error instanceof ConfigError || error instanceof StartupError
      ? error.message
      : `unexpected error: ${(error as Error).message ?? String(error)}`;
  dialog.showErrorBox('Towpath cannot start', message);
  app.exit(1);
  return undefined;
}
