import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../server/testing/workstation.ts';
import type { createFakeElectron as Create } from './testing/fake-electron.ts';

const fake = await vi.hoisted(async () => {
  const { createFakeElectron } = await import('./testing/fake-electron.ts');
  return createFakeElectron() as ReturnType<typeof Create>;
});
vi.mock('electron', () => fake);

const { FakeApp, FakeBrowserWindow } = await import('./testing/fake-electron.ts');
const { startDesktop } = await import('./desktop.ts');

let dataDir: string;
beforeEach(async () => {
  FakeBrowserWindow.created.length = 0;
  Object.assign(fake, { app: new FakeApp() });
  fake.dialog.showErrorBox.mockClear();
  dataDir = await makeTempDir();
});

let stopCore: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopCore?.();
  stopCore = undefined;
});

const env = () => ({
  HOST: '127.0.0.1',
  PORT: '0',
  WINDING_PORT: '0',
  TOWPATH_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
});

/** The IPC handler the main process registered for `channel`. */
function handlerOf(channel: string) {
  return fake.ipcMain.handle.mock.calls.findLast(([name]) => name === channel)?.[1] as (
    event: unknown,
    ...args: unknown[]
  ) => Promise<unknown>;
}

/** The application menu Towpath set last, as its template. */
function lastMenu() {
  const built = fake.Menu.setApplicationMenu.mock.calls.at(-1)?.[0] as {
    template: { label?: string; submenu?: { label?: string; click?: () => void; submenu?: unknown[] }[] }[];
  };
  return built.template;
}

const item = (menu: ReturnType<typeof lastMenu>, top: string, label: string) =>
  menu.find((entry) => entry.label === top)?.submenu?.find((entry) => entry.label === label);

describe('desktop main process', () => {
  it('starts the core in the data dir and opens a window on the LAN door', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    expect(desktop).toBeDefined();
    expect(fake.app.getPath('userData')).toBe(dataDir);
    expect(fake.app.getPath('sessionData')).toBe(join(dataDir, 'electron-session'));
    expect(desktop?.workstation.dataDir).toBe(dataDir);
    expect((await fetch(`${desktop?.workstation.urls.lan}/healthz`)).status).toBe(200);

    const [window] = FakeBrowserWindow.created;
    expect(window?.loadURL).toHaveBeenCalledWith(`${desktop?.workstation.urls.lan}/`);
    expect(window?.options.webPreferences.preload).toBe('/opt/towpath/dist/electron/preload.cjs');
    expect(fake.ipcMain.handle).toHaveBeenCalledWith('towpath:open-file', expect.any(Function));
    // A fresh install shows the first-run setup code in the window.
    const code = desktop?.workstation.dashboardApi.services.setupCode.current;
    expect(code).toMatch(/^\w{4}(-\w{4}){4}$/);
    expect(fake.dialog.showMessageBox).toHaveBeenCalledWith(
      window,
      expect.objectContaining({ message: `First-run setup code: ${code}` }),
    );
  });

  it('stops the core before the app quits', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const urls = desktop?.workstation.urls;

    fake.app.quit();
    expect(fake.app.quitted).toBe(false); // held until the core has stopped
    await vi.waitFor(() => expect(fake.app.quitted).toBe(true));
    await expect(fetch(`${urls?.lan}/healthz`)).rejects.toThrow();
    await expect(fetch(`${urls?.winding}/healthz`)).rejects.toThrow();
  });

  it('quits at once when another instance holds the lock', async () => {
    fake.app.hasLock = false;
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    expect(desktop).toBeUndefined();
    expect(fake.app.quitted).toBe(true);
    expect(FakeBrowserWindow.created).toHaveLength(0);
  });

  it('shows one clear message and exits 1 on a bad setting', async () => {
    const desktop = await startDesktop({ env: { ...env(), PORT: 'x' }, appRoot: '/opt/towpath' });
    expect(desktop).toBeUndefined();
    expect(fake.dialog.showErrorBox).toHaveBeenCalledWith(
      'Towpath cannot start',
      'invalid PORT="x": PORT must be an integer between 0 and 65535',
    );
    expect(fake.app.exitCode).toBe(1);
    expect(FakeBrowserWindow.created).toHaveLength(0);
  });

  it('offers a native open dialog for .wind and .gcode files only', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const handler = handlerOf('towpath:open-file') as (event: unknown, kind: unknown) => Promise<unknown>;
    const event = { sender: {} };

    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/jobs/vessel.wind'] });
    expect(await handler(event, 'wind')).toEqual({ canceled: false, path: '/jobs/vessel.wind' });
    expect(fake.dialog.showOpenDialog.mock.calls.at(-1)?.[0]).toMatchObject({
      properties: ['openFile'],
      filters: [{ extensions: ['wind'] }, { extensions: ['*'] }],
    });

    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await handler(event, 'gcode')).toEqual({ canceled: true });

    const calls = fake.dialog.showOpenDialog.mock.calls.length;
    await expect(handler(event, '../../etc')).rejects.toThrow('Unknown file kind');
    await expect(handler(event, { kind: 'wind' })).rejects.toThrow('Unknown file kind');
    expect(fake.dialog.showOpenDialog.mock.calls.length).toBe(calls);
  });

  it('opens files from the menu: native dialog, recent list, and the page told which file', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const [window] = FakeBrowserWindow.created;
    const menu = lastMenu();
    expect(menu.map((entry) => entry.label)).toEqual(['&File', '&Edit', '&View', '&Help']);

    fake.dialog.showOpenDialog.mockResolvedValueOnce({
      canceled: false,
      filePaths: [join(dataDir, 'a.wind')],
    });
    item(menu, '&File', 'Open Winding Definition…')?.click?.();
    await vi.waitFor(() => expect(window?.webContents.sent).toHaveLength(1));
    expect(window?.webContents.sent[0]).toEqual({
      channel: 'towpath:menu-command',
      payload: { type: 'open-file', kind: 'wind', path: join(dataDir, 'a.wind') },
    });
    expect(fake.app.recentDocuments).toEqual([join(dataDir, 'a.wind')]);
    expect(await handlerOf('towpath:recent-files')({})).toEqual([
      { kind: 'wind', path: join(dataDir, 'a.wind') },
    ]);
    const recentMenu = item(lastMenu(), '&File', 'Open Recent')?.submenu as { label?: string }[];
    expect(recentMenu[0]?.label).toBe('a.wind');

    item(lastMenu(), '&File', 'Save G-code…')?.click?.();
    expect(window?.webContents.sent[1]?.payload).toEqual({ type: 'save-gcode' });
  });

  it('takes a vanished file off the recent list with a plain message', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/gone/away.gcode'] });
    await handlerOf('towpath:open-file')({ sender: {} }, 'gcode');
    const recentMenu = item(lastMenu(), '&File', 'Open Recent')?.submenu as { click?: () => void }[];
    recentMenu[0]?.click?.();
    expect(fake.dialog.showMessageBox.mock.calls.at(-1)?.[1]).toMatchObject({
      type: 'warning',
      message: '/gone/away.gcode is no longer there',
    });
    expect(await handlerOf('towpath:recent-files')({})).toEqual([]);
    expect(FakeBrowserWindow.created[0]?.webContents.sent).toEqual([]);
  });

  it('offers a native save dialog for G-code and definitions only', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const save = handlerOf('towpath:save-file');
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/jobs/vessel.gcode' });
    expect(await save({ sender: {} }, { kind: 'gcode', suggestedPath: '/jobs/vessel.gcode' })).toEqual({
      canceled: false,
      path: '/jobs/vessel.gcode',
    });
    expect(fake.dialog.showSaveDialog.mock.calls.at(-1)?.[0]).toMatchObject({
      defaultPath: '/jobs/vessel.gcode',
      filters: [{ extensions: ['gcode', 'nc', 'ngc'] }],
    });
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: true, filePath: '' });
    expect(await save({ sender: {} }, { kind: 'gcode' })).toEqual({ canceled: true });
    await expect(save({ sender: {} }, { kind: 'exe' })).rejects.toThrow('Unknown file kind');
    await expect(save({ sender: {} }, null)).rejects.toThrow('Unknown file kind');
  });

  it('saves a definition through the save dialog, then over the same file without one', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const save = handlerOf('towpath:save-file');
    // A path the operator never chose still needs the dialog.
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/jobs/part.wind' });
    expect(await save({ sender: {} }, { kind: 'wind', current: '/etc/passwd.wind' })).toEqual({
      canceled: false,
      path: '/jobs/part.wind',
    });
    expect(fake.dialog.showSaveDialog.mock.calls.at(-1)?.[0]).toMatchObject({
      title: 'Save winding definition',
      filters: [{ extensions: ['wind'] }],
    });
    const dialogs = fake.dialog.showSaveDialog.mock.calls.length;
    expect(await save({ sender: {} }, { kind: 'wind', current: '/jobs/part.wind' })).toEqual({
      canceled: false,
      path: '/jobs/part.wind',
    });
    expect(fake.dialog.showSaveDialog.mock.calls.length).toBe(dialogs);
    // G-code always asks: "current" is a definition's shortcut only.
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: true, filePath: '' });
    expect(await save({ sender: {} }, { kind: 'gcode', current: '/jobs/part.wind' })).toEqual({
      canceled: true,
    });
  });

  it('opens the .wind files of its command line in the Winding area, and those of a second launch', async () => {
    const dir = await makeTempDir('towpath-launch-');
    const first = join(dir, 'first.wind');
    await writeFile(first, '{}\n');
    const argv = process.argv;
    process.argv = ['/opt/towpath/towpath', '--no-sandbox', first];
    let desktop: Awaited<ReturnType<typeof startDesktop>>;
    try {
      desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    } finally {
      process.argv = argv;
    }
    stopCore = desktop?.workstation.stop;
    const window = desktop?.window as unknown as InstanceType<typeof FakeBrowserWindow>;
    expect(window.loadURL.mock.calls.at(-1)?.[0]).toBe(`${desktop?.workstation.urls.lan}/winding`);
    const launch = handlerOf('towpath:launch-files');
    expect(await launch({})).toEqual([first]);
    expect(await launch({})).toEqual([]);
    // The page may read the file it was handed.
    const read = handlerOf('towpath:read-file');
    expect(await read({}, first, 0, 100)).toMatchObject({ size: 3 });

    const second = join(dir, 'second.wind');
    fake.app.emit('second-instance', {}, ['/opt/towpath/towpath', 'second.wind'], dir);
    expect(window.webContents.sent.at(-1)).toEqual({
      channel: 'towpath:menu-command',
      payload: { type: 'open-file', kind: 'wind', path: second },
    });
  });

  it('asks before a page with unsaved changes is closed or reloaded', async () => {
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const window = desktop?.window as unknown as InstanceType<typeof FakeBrowserWindow>;
    // "Stay": the unload stays prevented.
    fake.dialog.showMessageBoxSync.mockReturnValueOnce(1);
    const stay = { preventDefault: vi.fn() };
    window.webContents.emit('will-prevent-unload', stay);
    expect(stay.preventDefault).not.toHaveBeenCalled();
    expect(fake.dialog.showMessageBoxSync.mock.calls.at(-1)?.[1]).toMatchObject({
      buttons: ['Leave', 'Stay'],
    });
    // "Leave": Electron is told to unload after all.
    fake.dialog.showMessageBoxSync.mockReturnValueOnce(0);
    const leave = { preventDefault: vi.fn() };
    window.webContents.emit('will-prevent-unload', leave);
    expect(leave.preventDefault).toHaveBeenCalled();
  });

  it('opens the window where it was last closed', async () => {
    const first = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    const [window] = FakeBrowserWindow.created;
    expect(window?.options).toMatchObject({ width: 1280, height: 820 });
    if (window) window.normalBounds = { x: 40, y: 30, width: 1100, height: 750 };
    window?.maximize();
    window?.emit('close');
    await first?.workstation.stop();

    FakeBrowserWindow.created.length = 0;
    const second = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = second?.workstation.stop;
    const [again] = FakeBrowserWindow.created;
    expect(again?.options).toMatchObject({ x: 40, y: 30, width: 1100, height: 750 });
    expect(again?.maximize).toHaveBeenCalled();
  });

  it('adds the Machine menu the integrator supplies, and developer tools only unpackaged', async () => {
    fake.app.isPackaged = true;
    const desktop = await startDesktop({
      env: env(),
      appRoot: '/opt/towpath',
      machineMenu: [{ label: 'Emergency Stop' }],
    });
    stopCore = desktop?.workstation.stop;
    const menu = lastMenu();
    expect(menu.map((entry) => entry.label)).toEqual(['&File', '&Edit', '&View', '&Machine', '&Help']);
    const view = menu.find((entry) => entry.label === '&View')?.submenu as { role?: string }[];
    expect(view.some((entry) => entry.role === 'toggleDevTools')).toBe(false);
  });

  it('lets the page read, in chunks, only files the operator opened', async () => {
    const dir = await makeTempDir('towpath-desktop-');
    const chosen = join(dir, 'part.gcode');
    const other = join(dir, 'secret.txt');
    await writeFile(chosen, 'G0 X1\nG0 X2\n');
    await writeFile(other, 'not yours');
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const read = handlerOf('towpath:read-file');
    await expect(read({}, chosen, 0, 4)).rejects.toThrow('Only a file the operator opened can be read');

    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [chosen] });
    await handlerOf('towpath:open-file')({ sender: {} }, 'gcode');
    const first = (await read({}, chosen, 0, 4)) as { bytes: Uint8Array; size: number };
    expect(new TextDecoder().decode(first.bytes)).toBe('G0 X');
    expect(first.size).toBe(12);
    const rest = (await read({}, chosen, 4, 100)) as { bytes: Uint8Array };
    expect(new TextDecoder().decode(rest.bytes)).toBe('1\nG0 X2\n');
    await expect(read({}, other, 0, 4)).rejects.toThrow('Only a file the operator opened');
    await expect(read({}, chosen, -1, 4)).rejects.toThrow('offset');
  });

  it('lets the page write, in pieces and in order, only the file chosen in the save dialog', async () => {
    const dir = await makeTempDir('towpath-desktop-');
    const target = join(dir, 'vessel.gcode');
    await writeFile(target, 'the previous program\n');
    const desktop = await startDesktop({ env: env(), appRoot: '/opt/towpath' });
    stopCore = desktop?.workstation.stop;
    const write = handlerOf('towpath:write-file');
    const bytes = (text: string) => new TextEncoder().encode(text);
    await expect(write({}, target, bytes('G0'), { offset: 0, last: true })).rejects.toThrow(
      'Only the file chosen in the save dialog can be written',
    );

    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    await handlerOf('towpath:save-file')({ sender: {} }, { kind: 'gcode' });
    await write({}, target, bytes('G0 X1\n'), { offset: 0, last: false });
    // Until the last piece the previous file stays as it was.
    expect(await readFile(target, 'utf8')).toBe('the previous program\n');
    await write({}, target, bytes('G0 X2\n'), { offset: 6, last: true });
    expect(await readFile(target, 'utf8')).toBe('G0 X1\nG0 X2\n');
    expect(await readdir(dir)).toEqual(['vessel.gcode']);
    // Done: writing again needs the dialog again.
    await expect(write({}, target, bytes('x'), { offset: 0, last: true })).rejects.toThrow('save dialog');

    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    await handlerOf('towpath:save-file')({ sender: {} }, { kind: 'gcode' });
    await write({}, target, bytes('G1'), { offset: 0, last: false });
    await expect(write({}, target, bytes('G2'), { offset: 5, last: true })).rejects.toThrow(
      'does not follow the 2 bytes written',
    );
    // The broken save left the saved program alone and no partial file behind.
    expect(await readFile(target, 'utf8')).toBe('G0 X1\nG0 X2\n');
    expect(await readdir(dir)).toEqual(['vessel.gcode']);
    await expect(write({}, target, 'text', { offset: 0, last: true })).rejects.toThrow('save dialog');

    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    await handlerOf('towpath:save-file')({ sender: {} }, { kind: 'gcode' });
    await expect(write({}, target, 'text', { offset: 0, last: true })).rejects.toThrow('Uint8Array');
    fake.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    await handlerOf('towpath:save-file')({ sender: {} }, { kind: 'gcode' });
    await expect(write({}, target, bytes('x'), { offset: -1, last: true })).rejects.toThrow('offset');
  });
});
