import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import { ConfigError, type Env, loadConfig } from '../server/config.ts';
import { StartupError } from '../server/errors.ts';
import { startWorkstation, type Workstation } from '../server/main.ts';
import { OPEN_FILE_CHANNEL, type OpenFileKind, type OpenFileResult } from './preload-api.ts';
import { createMainWindow, hardenSession } from './window.ts';

const FILE_FILTERS: Record<OpenFileKind, Electron.FileFilter> = {
  wind: { name: 'Winding definitions', extensions: ['wind'] },
  gcode: { name: 'G-code programs', extensions: ['gcode', 'nc', 'ngc'] },
};

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

  const window = createMainWindow(workstation.urls.lan, join(appRoot, 'dist', 'electron', 'preload.cjs'));
  showSetupCode(window, workstation);

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

function fail(error: unknown): undefined {
  const message =
    error instanceof ConfigError || error instanceof StartupError
      ? error.message
      : `unexpected error: ${(error as Error).message ?? String(error)}`;
  dialog.showErrorBox('Towpath cannot start', message);
  app.exit(1);
  return undefined;
}
