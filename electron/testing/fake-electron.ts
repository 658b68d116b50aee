// Test support: a stand-in for the `electron` module with just the surface Towpath's main process
// uses. Electron itself is the edge of the system here (its binary is not installed in CI).
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export class FakeWebContents extends EventEmitter {
  /** What the main process sent to the page, by channel. */
  readonly sent: { channel: string; payload: unknown }[] = [];
  send = vi.fn((channel: string, payload: unknown) => {
    this.sent.push({ channel, payload });
  });
  openHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static created: FakeBrowserWindow[] = [];
  static fromWebContents = vi.fn(() => null);
  readonly webContents = new FakeWebContents();
  loadURL = vi.fn(async (_url: string) => {});
  show = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
  isDestroyed = () => false;
  isMinimized = () => false;
  maximized = false;
  fullScreen = false;
  maximize = vi.fn(() => {
    this.maximized = true;
  });
  setFullScreen = vi.fn((on: boolean) => {
    this.fullScreen = on;
  });
  isMaximized = () => this.maximized;
  isFullScreen = () => this.fullScreen;
  /** Where the window would be when neither maximized nor full screen. */
  normalBounds = { x: 0, y: 0, width: 1280, height: 820 };
  getNormalBounds = () => ({ ...this.normalBounds });
  readonly options: Record<string, unknown> & { webPreferences: Record<string, unknown> };
  constructor(options: Record<string, unknown> & { webPreferences: Record<string, unknown> }) {
    super();
    this.options = options;
    FakeBrowserWindow.created.push(this);
  }
}

/** Emits `before-quit` like Electron: listeners may call preventDefault to hold the quit. */
export class FakeApp extends EventEmitter {
  quitted = false;
  exitCode: number | undefined;
  paths = new Map<string, string>([['userData', '/nonexistent/electron-default']]);
  hasLock = true;
  isPackaged = false;
  recentDocuments: string[] = [];
  addRecentDocument = vi.fn((path: string) => {
    this.recentDocuments.push(path);
  });
  clearRecentDocuments = vi.fn(() => {
    this.recentDocuments = [];
  });
  requestSingleInstanceLock = vi.fn(() => this.hasLock);
  whenReady = vi.fn(async () => {});
  getAppPath = vi.fn(() => '/opt/towpath');
  getPath = vi.fn((name: string) => this.paths.get(name) ?? `/nonexistent/${name}`);
  setPath = vi.fn((name: string, value: string) => {
    this.paths.set(name, value);
  });
  exit = vi.fn((code: number) => {
    this.exitCode = code;
  });
  quit = vi.fn(() => {
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) this.quitted = true;
  });
}

export function createFakeElectron() {
  const headerListeners: Array<(details: unknown, callback: (r: unknown) => void) => void> = [];
  const permissionHandlers: Array<
    (wc: unknown, permission: string, callback: (ok: boolean) => void) => void
  > = [];
  return {
    app: new FakeApp(),
    BrowserWindow: FakeBrowserWindow,
    dialog: {
      showErrorBox: vi.fn(),
      showOpenDialog: vi.fn(),
      showSaveDialog: vi.fn(),
      showMessageBox: vi.fn(async (..._args: unknown[]) => ({ response: 0 })),
      showMessageBoxSync: vi.fn((..._args: unknown[]) => 1),
    },
    ipcMain: { handle: vi.fn() },
    globalShortcut: {
      register: vi.fn((_accelerator: string, _callback: () => void) => true),
      unregister: vi.fn(),
    },
    /** The menu Towpath set last, as the template it was built from. */
    Menu: {
      buildFromTemplate: vi.fn((template: unknown[]) => ({ template })),
      setApplicationMenu: vi.fn(),
    },
    screen: {
      getAllDisplays: vi.fn(() => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }]),
    },
    shell: { openExternal: vi.fn(async () => {}) },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: vi.fn((listener) => headerListeners.push(listener)) },
        setPermissionRequestHandler: vi.fn((handler) => permissionHandlers.push(handler)),
      },
    },
    headerListeners,
    permissionHandlers,
  };
}
