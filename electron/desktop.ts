import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  type MenuItemConstructorOptions,
  screen,
  session,
  shell,
} from 'electron';
import { VERSION } from '../bridge/version.ts';
import { ConfigError, type Env, loadConfig } from '../server/config/index.ts';
import { StartupError } from '../server/errors.ts';
import { startWorkstation, type Workstation } from '../server/main.ts';
import { windFilesIn } from './command-line.ts';
import { emergencyStopper, registerEstopShortcut } from './estop.ts';
import { menuTemplate } from './menu.ts';
import {
  type FileChunk,
  LAUNCH_FILES_CHANNEL,
  MENU_COMMAND_CHANNEL,
  type MenuCommand,
  OPEN_FILE_CHANNEL,
  type OpenFileKind,
  type OpenFileResult,
  READ_FILE_CHANNEL,
  READ_FILE_MAX_BYTES,
  RECENT_FILES_CHANNEL,
  type RecentFile,
  SAVE_FILE_CHANNEL,
  type SaveFileResult,
  WRITE_FILE_CHANNEL,
  WRITE_FILE_MAX_BYTES,
} from './preload-api.ts';
import { RecentFiles } from './recent-files.ts';
import { createMainWindow, hardenSession } from './window.ts';
import { loadWindowState, rememberWindowState } from './window-state.ts';

const FILE_FILTERS: Record<OpenFileKind, Electron.FileFilter> = {
  wind: { name: 'Winding definitions', extensions: ['wind'] },
  gcode: { name: 'G-code programs', extensions: ['gcode', 'nc', 'ngc'] },
};

export interface DesktopOptions {
  env?: Env;
  /** The folder holding `dist/` (the packaged app or the checkout). */
  appRoot?: string;
  /** Items of the application's Machine menu (the emergency stop); without them there is none. */
  machineMenu?: MenuItemConstructorOptions[];
}

export interface Desktop {
  workstation: Workstation;
  window: BrowserWindow;
  /** The e-stop of the shortcut and the menu item (electron/estop.ts's `estopMenuItem(emergencyStop)`). */
  emergencyStop: ReturnType<typeof emergencyStopper>;
}

/**
 * The Electron main process: one instance per user, the core embedded in-process, one window on the
 * LAN door. Quitting stops the core before the process exits.
 */
export async function startDesktop({
  env,
  appRoot = app.getAppPath(),
  machineMenu,
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

  const dataDir = workstation.dataDir;
  const recent = new RecentFiles(dataDir);
  const remembered = loadWindowState(
    dataDir,
    screen.getAllDisplays().map((display) => display.workArea),
  );
  const window = createMainWindow(
    workstation.urls.lan,
    join(appRoot, 'dist', 'electron', 'preload.cjs'),
    remembered,
  );
  rememberWindowState(window, dataDir);
  // A page with unsaved work (the design studio) refuses to unload; Electron would then keep the
  // window open without a word, so ask, as a browser does.
  window.webContents.on('will-prevent-unload', (event: Electron.Event) => {
    const choice = dialog.showMessageBoxSync(window, {
      type: 'question',
      title: 'Unsaved changes',
      message: 'Leave the page and lose the unsaved changes?',
      buttons: ['Leave', 'Stay'],
      defaultId: 1,
      cancelId: 1,
    });
    if (choice === 0) event.preventDefault();
  });
  let launched = windFilesIn(process.argv.slice(1), process.cwd());
  // A launch with a definition goes straight to the Winding area, which opens it.
  if (launched.length > 0) void window.loadURL(`${workstation.urls.lan}/winding`);

  const emergencyStop = emergencyStopper(workstation.dataDir);
  const unregisterEstop = registerEstopShortcut(globalShortcut, emergencyStop);
  if (!unregisterEstop)
    workstation.logger.warn(
      'the e-stop shortcut is taken by another application; use the button or the menu',
    );
  app.on('will-quit', () => unregisterEstop?.());
  showSetupCode(window, workstation);

  const send = (command: MenuCommand) => {
    if (!window.isDestroyed()) window.webContents.send(MENU_COMMAND_CHANNEL, command);
  };
  /** Files the operator opened this session: with the recent files, the only ones the page may read. */
  const chosen = new Set<string>();
  const opened = (kind: OpenFileKind, path: string) => {
    chosen.add(path);
    recent.add(kind, path);
    app.addRecentDocument(path);
    refreshMenu();
  };
  const refreshMenu = () =>
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        menuTemplate({
          recent: recent.list(),
          development: !app.isPackaged,
          platform: process.platform,
          ...(machineMenu ? { machine: machineMenu } : {}),
          actions: {
            open: (kind) =>
              void openFile(window.webContents, kind).then((result) => {
                if (result.canceled) return;
                opened(kind, result.path);
                send({ type: 'open-file', kind, path: result.path });
              }),
            openRecent: (file: RecentFile) => {
              if (!existsSync(file.path)) {
                recent.remove(file.path);
                refreshMenu();
                void dialog.showMessageBox(window, {
                  type: 'warning',
                  title: 'File not found',
                  message: `${file.path} is no longer there`,
                  detail: 'It was moved, renamed or deleted, and has been taken off the recent files.',
                });
                return;
              }
              opened(file.kind, file.path);
              send({ type: 'open-file', kind: file.kind, path: file.path });
            },
            clearRecent: () => {
              recent.clear();
              app.clearRecentDocuments();
              refreshMenu();
            },
            saveGcode: () => send({ type: 'save-gcode' }),
            documentation: () => void shell.openExternal(`${workstation.urls.winding}/docs`),
            about: () =>
              void dialog.showMessageBox(window, {
                type: 'info',
                title: 'About Towpath',
                message: `Towpath ${VERSION}`,
                detail: [
                  'A workstation for filament-winding machines.',
                  `Electron ${process.versions.electron ?? '?'}, Chromium ${process.versions.chrome ?? '?'}, Node ${process.versions.node}`,
                  `Data folder: ${dataDir}`,
                  `Address for LAN browsers: ${workstation.urls.lan}/`,
                ].join('\n'),
              }),
          },
        }),
      ),
    );
  refreshMenu();

  ipcMain.handle(OPEN_FILE_CHANNEL, async (event, kind: unknown) => {
    const result = await openFile(event.sender, kind);
    if (!result.canceled) opened(kind as OpenFileKind, result.path);
    return result;
  });
  /** Paths the operator chose in the save dialog and the page has not finished writing yet. */
  const saving = new Set<string>();
  ipcMain.handle(SAVE_FILE_CHANNEL, async (event, options: unknown) => {
    const given = options as { kind?: unknown; current?: unknown } | null;
    // "Save" of a definition the operator opened or saved this session needs no dialog.
    const current = given?.kind === 'wind' && typeof given.current === 'string' ? given.current : null;
    const result: SaveFileResult =
      current !== null && chosen.has(current)
        ? { canceled: false, path: current }
        : await saveFile(event.sender, options);
    if (!result.canceled) {
      saving.add(result.path);
      if (given?.kind === 'wind') chosen.add(result.path);
    }
    return result;
  });
  ipcMain.handle(WRITE_FILE_CHANNEL, async (_event, path: unknown, bytes: unknown, at: unknown) => {
    if (typeof path !== 'string' || !saving.has(path))
      throw new Error('Only the file chosen in the save dialog can be written');
    try {
      await writeChosenFile(path, bytes, at);
    } catch (error) {
      // A broken save starts over from the dialog; the partial file goes.
      saving.delete(path);
      await rm(partPath(path), { force: true });
      throw error;
    }
    if ((at as { last: boolean }).last) saving.delete(path);
  });
  ipcMain.handle(RECENT_FILES_CHANNEL, () => recent.list());
  // Files named on the command line: handed to the page once, when its Winding area asks.
  for (const path of launched) opened('wind', path);
  ipcMain.handle(LAUNCH_FILES_CHANNEL, () => {
    const files = launched;
    launched = [];
    return files;
  });
  ipcMain.handle(READ_FILE_CHANNEL, (_event, path: unknown, offset: unknown, length: unknown) =>
    readOpenedFile(
      (p) => chosen.has(p) || recent.list().some((file) => file.path === p),
      path,
      offset,
      length,
    ),
  );

  app.on('second-instance', (_event, argv: string[], cwd: string) => {
    if (window.isDestroyed()) return;
    for (const path of windFilesIn(argv.slice(1), cwd)) {
      opened('wind', path);
      send({ type: 'open-file', kind: 'wind', path });
    }
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

  return { workstation, window, emergencyStop };
}

/**
 * Dashboard spec §6.1: on a fresh install the first admin needs the setup code; the person at the
 * workstation sees it here (and `towpath serve` prints it). Not modal: the window stays usable.
 */
function showSetupCode(window: BrowserWindow, workstation: Workstation): void {
  const code = workstation.dashboardApi.services.setupCode.current;
  if (!code) return;
  process.stderr.write(`First-run setup code: ${code}\n`);
  void dialog.showMessageBox(window, {
    type: 'info',
    title: 'Towpath first-run setup',
    message: `First-run setup code: ${code}`,
    detail:
      'Enter this code when you create the first admin account. It works once, only on this ' +
      `workstation, and is also kept in ${join(workstation.dataDir, 'setup-code')} until then.`,
    buttons: ['OK'],
  });
}

async function openFile(sender: Electron.WebContents, kind: unknown): Promise<OpenFileResult> {
  // The renderer is untrusted input like any client: only the known kinds are accepted.
  if (kind !== 'wind' && kind !== 'gcode') throw new Error(`Unknown file kind: ${String(kind)}`);
  const owner = BrowserWindow.fromWebContents(sender);
  const options: Electron.OpenDialogOptions = {
    title: kind === 'wind' ? 'Open winding definition' : 'Open G-code program',
    properties: ['openFile'],
    filters: [FILE_FILTERS[kind], { name: 'All files', extensions: ['*'] }],
  };
  const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
  const path = result.filePaths[0];
  return result.canceled || !path ? { canceled: true } : { canceled: false, path };
}

async function saveFile(sender: Electron.WebContents, options: unknown): Promise<SaveFileResult> {
  const given = options as { kind?: unknown; suggestedPath?: unknown } | null;
  const kind = given?.kind;
  if (kind !== 'gcode' && kind !== 'wind') throw new Error(`Unknown file kind: ${String(kind)}`);
  const suggested = typeof given?.suggestedPath === 'string' ? given.suggestedPath : undefined;
  const owner = BrowserWindow.fromWebContents(sender);
  const dialogOptions: Electron.SaveDialogOptions = {
    title: kind === 'wind' ? 'Save winding definition' : 'Save G-code program',
    filters: [FILE_FILTERS[kind]],
    properties: ['showOverwriteConfirmation', 'createDirectory'],
    ...(suggested ? { defaultPath: suggested } : {}),
  };
  const result = owner
    ? await dialog.showSaveDialog(owner, dialogOptions)
    : await dialog.showSaveDialog(dialogOptions);
  return result.canceled || !result.filePath
    ? { canceled: true }
    : { canceled: false, path: result.filePath };
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

/** Where a save is gathered until its last piece: beside the target, so the final rename stays on one disk. */
function partPath(path: string): string {
  return `${path}.towpath-part`;
}

async function writeChosenFile(path: string, bytes: unknown, at: unknown): Promise<void> {
  if (!(bytes instanceof Uint8Array)) throw new Error('bytes must be a Uint8Array');
  if (bytes.length > WRITE_FILE_MAX_BYTES)
    throw new Error(`a piece may hold at most ${WRITE_FILE_MAX_BYTES} bytes`);
  const { offset, last } = (at ?? {}) as { offset?: unknown; last?: unknown };
  if (!Number.isSafeInteger(offset) || (offset as number) < 0)
    throw new Error('offset must be a whole number ≥ 0');
  if (typeof last !== 'boolean') throw new Error('last must be true or false');
  const part = partPath(path);
  const handle = await open(part, offset === 0 ? 'w' : 'r+');
  try {
    // Pieces arrive in order: a gap or an overlap means the page lost track, and the save fails.
    const { size } = await handle.stat();
    if (size !== offset) throw new Error(`the piece at ${offset} does not follow the ${size} bytes written`);
    await handle.write(bytes, 0, bytes.length, offset as number);
    if (last) await handle.sync();
  } finally {
    await handle.close();
  }
  if (last) await rename(part, path);
}

async function readOpenedFile(
  mayRead: (path: string) => boolean,
  path: unknown,
  offset: unknown,
  length: unknown,
): Promise<FileChunk> {
  if (typeof path !== 'string' || !mayRead(path))
    throw new Error('Only a file the operator opened can be read');
  if (!Number.isSafeInteger(offset) || (offset as number) < 0)
    throw new Error('offset must be a whole number ≥ 0');
  if (!Number.isSafeInteger(length) || (length as number) < 0)
    throw new Error('length must be a whole number ≥ 0');
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const wanted = Math.min(length as number, READ_FILE_MAX_BYTES, Math.max(0, size - (offset as number)));
    const bytes = new Uint8Array(wanted);
    const { bytesRead } = await handle.read(bytes, 0, wanted, offset as number);
    return { bytes: bytes.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}
