import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RENDERER_CSP, WIDGET_FRAME_CSP } from '../server/lan/csp.ts';
import type { createFakeElectron as Create } from './testing/fake-electron.ts';

const fake = await vi.hoisted(async () => {
  const { createFakeElectron } = await import('./testing/fake-electron.ts');
  return createFakeElectron() as ReturnType<typeof Create>;
});
vi.mock('electron', () => fake);

const { FakeBrowserWindow } = await import('./testing/fake-electron.ts');
const { createMainWindow, hardenSession } = await import('./window.ts');

const APP = 'http://127.0.0.1:4001';

beforeEach(() => {
  FakeBrowserWindow.created.length = 0;
  fake.shell.openExternal.mockClear();
});

describe('main window', () => {
  it('isolates the page from Node and loads the LAN door', () => {
    createMainWindow(APP, '/opt/towpath/dist/electron/preload.cjs');
    const [window] = FakeBrowserWindow.created;
    expect(window?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      preload: '/opt/towpath/dist/electron/preload.cjs',
    });
    expect(window?.loadURL).toHaveBeenCalledWith(`${APP}/`);
    expect(window?.show).not.toHaveBeenCalled();
    window?.emit('ready-to-show');
    expect(window?.show).toHaveBeenCalled();
  });

  it('refuses navigation and redirects away from the workstation', () => {
    createMainWindow(APP, '/preload.cjs');
    const contents = FakeBrowserWindow.created[0]?.webContents;
    for (const [event, url, refused] of [
      ['will-navigate', 'https://example.com/', true],
      ['will-navigate', 'http://127.0.0.1:8000/docs', true],
      ['will-navigate', 'file:///etc/passwd', true],
      ['will-navigate', 'not a url', true],
      ['will-redirect', 'http://192.168.1.9:4001/', true],
      ['will-navigate', `${APP}/winding`, false],
      ['will-redirect', `${APP}/admin`, false],
    ] as const) {
      const preventDefault = vi.fn();
      contents?.emit(event, { preventDefault }, url);
      expect(preventDefault.mock.calls.length, `${event} ${url}`).toBe(refused ? 1 : 0);
    }
  });

  it('never opens new windows; web links go to the system browser', () => {
    createMainWindow(APP, '/preload.cjs');
    const handler = FakeBrowserWindow.created[0]?.webContents.openHandler;
    expect(handler?.({ url: 'https://docs.example.org/winding' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://docs.example.org/winding');
    expect(handler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(handler?.({ url: `${APP}/dashboards` })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('refuses webviews', () => {
    createMainWindow(APP, '/preload.cjs');
    const preventDefault = vi.fn();
    FakeBrowserWindow.created[0]?.webContents.emit('will-attach-webview', { preventDefault });
    expect(preventDefault).toHaveBeenCalled();
  });
});

describe('session hardening', () => {
  it('adds the renderer CSP to every response and denies every permission', () => {
    hardenSession(fake.session.defaultSession as never);
    const onHeaders = fake.headerListeners.at(-1);
    const callback = vi.fn();
    onHeaders?.({ responseHeaders: { 'Content-Type': ['text/html'] } }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [RENDERER_CSP] },
    });
    const decide = vi.fn();
    fake.permissionHandlers.at(-1)?.({}, 'media', decide);
    expect(decide).toHaveBeenCalledWith(false);
  });

  it('keeps the trusted-widget frame on its own sandboxed policy, and only that document', () => {
    hardenSession(fake.session.defaultSession as never);
    const onHeaders = fake.headerListeners.at(-1);
    const callback = vi.fn();
    onHeaders?.({ url: 'http://127.0.0.1:4001/widget-frame', responseHeaders: {} }, callback);
    expect(callback).toHaveBeenLastCalledWith({
      responseHeaders: { 'Content-Security-Policy': [WIDGET_FRAME_CSP] },
    });
    onHeaders?.({ url: 'http://127.0.0.1:4001/widget-frame/x', responseHeaders: {} }, callback);
    expect(callback).toHaveBeenLastCalledWith({
      responseHeaders: { 'Content-Security-Policy': [RENDERER_CSP] },
    });
  });
});
