import { BrowserWindow, type Session, shell, type WebContents } from 'electron';
import { contentSecurityPolicyFor } from '../server/lan/csp.ts';
import { DEFAULT_SIZE, MIN_SIZE, type WindowState } from './window-state.ts';

/** Security options of every Towpath window: the page is a web app and gets no Node. */
export const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

export function sameOrigin(url: string, appUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(appUrl).origin;
  } catch {
    return false;
  }
}

/**
 * Keeps the window on the workstation's own pages: navigation and redirects elsewhere are refused,
 * new windows are never opened, and http(s) links meant for a new window go to the system browser.
 */
export function lockNavigation(contents: WebContents, appUrl: string): void {
  const refuseForeign = (event: { preventDefault(): void }, url: string) => {
    if (!sameOrigin(url, appUrl)) event.preventDefault();
  };
  contents.on('will-navigate', refuseForeign);
  contents.on('will-redirect', refuseForeign);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url) && !sameOrigin(url, appUrl)) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

/**
 * Enforces the renderer's Content-Security-Policy on everything the session loads (the LAN door
 * sends it too; this also covers pages it does not serve) and refuses every permission request
 * (camera, notifications, …): the renderer needs none.
 */
export function hardenSession(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    // The trusted-widget frame keeps its own (sandboxed) policy; every other document gets the app's.
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [contentSecurityPolicyFor(details.url)],
      },
    });
  });
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
}

/** The main window on the LAN door, where it was last time (`state`) or centred at the default size. */
export function createMainWindow(appUrl: string, preloadPath: string, state?: WindowState): BrowserWindow {
  const window = new BrowserWindow({
    ...(state ? state.bounds : DEFAULT_SIZE),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Towpath',
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: preloadPath },
  });
  lockNavigation(window.webContents, appUrl);
  if (state?.maximized) window.maximize();
  if (state?.fullScreen) window.setFullScreen(true);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${appUrl}/`);
  return window;
}
