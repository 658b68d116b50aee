import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../server/testing/workstation.ts';
import type { createFakeElectron as Create } from './fake-electron.ts';

const fake = await vi.hoisted(async () => {
  const { createFakeElectron } = await import('./fake-electron.ts');
  return createFakeElectron() as ReturnType<typeof Create>;
});
vi.mock('electron', () => fake);

const { FakeApp, FakeBrowserWindow } = await import('./fake-electron.ts');
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
    const handler = fake.ipcMain.handle.mock.calls.at(-1)?.[1] as (
      event: unknown,
      kind: unknown,
    ) => Promise<unknown>;
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
});
