import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { type MenuActions, menuTemplate } from './menu.ts';

function actions() {
  return {
    open: vi.fn(),
    openRecent: vi.fn(),
    clearRecent: vi.fn(),
    saveGcode: vi.fn(),
    documentation: vi.fn(),
    about: vi.fn(),
  } satisfies MenuActions;
}

const submenu = (item: MenuItemConstructorOptions | undefined) =>
  (item?.submenu ?? []) as MenuItemConstructorOptions[];
const named = (items: MenuItemConstructorOptions[], label: string) =>
  items.find((item) => item.label === label);
const labels = (items: MenuItemConstructorOptions[]) =>
  items.map((item) => item.label ?? item.role ?? item.type);
const click = (item: MenuItemConstructorOptions | undefined) =>
  (item?.click as unknown as (() => void) | undefined)?.();

describe('application menu', () => {
  it('has File, Edit, View and Help on Windows and Linux, with the file actions and Quit', () => {
    const act = actions();
    const menu = menuTemplate({ actions: act, recent: [], development: false, platform: 'linux' });
    expect(labels(menu)).toEqual(['&File', '&Edit', '&View', '&Help']);
    const file = submenu(menu[0]);
    expect(labels(file)).toEqual([
      'Open Winding Definition…',
      'Open G-code…',
      'Open Recent',
      'separator',
      'Save G-code…',
      'separator',
      'Quit',
    ]);
    click(named(file, 'Open Winding Definition…'));
    click(named(file, 'Open G-code…'));
    click(named(file, 'Save G-code…'));
    expect(act.open.mock.calls).toEqual([['wind'], ['gcode']]);
    expect(act.saveGcode).toHaveBeenCalledTimes(1);
    expect(named(file, 'Quit')?.role).toBe('quit');
    expect(named(file, 'Open Winding Definition…')?.accelerator).toBe('CmdOrCtrl+O');

    const help = submenu(named(menu, '&Help'));
    click(named(help, 'Documentation'));
    click(named(help, 'About Towpath'));
    expect(act.documentation).toHaveBeenCalledTimes(1);
    expect(act.about).toHaveBeenCalledTimes(1);
  });

  it('offers zoom and full screen always, developer tools only in development', () => {
    const roles = (development: boolean) =>
      submenu(
        named(menuTemplate({ actions: actions(), recent: [], development, platform: 'win32' }), '&View'),
      ).map((item) => item.role ?? item.type);
    expect(roles(false)).toEqual(['resetZoom', 'zoomIn', 'zoomOut', 'separator', 'togglefullscreen']);
    expect(roles(true)).toContain('toggleDevTools');
  });

  it('lists recent files newest first and opens the one picked', () => {
    const act = actions();
    const recent = [
      { kind: 'wind' as const, path: '/jobs/vessel.wind' },
      { kind: 'gcode' as const, path: '/jobs/pipe.gcode' },
    ];
    const menu = menuTemplate({ actions: act, recent, development: false, platform: 'linux' });
    const items = submenu(named(submenu(menu[0]), 'Open Recent'));
    expect(labels(items)).toEqual(['vessel.wind', 'pipe.gcode', 'separator', 'Clear Recent']);
    expect(items[0]?.sublabel).toBe('/jobs/vessel.wind');
    click(items[1]);
    expect(act.openRecent).toHaveBeenCalledWith(recent[1]);
    click(named(items, 'Clear Recent'));
    expect(act.clearRecent).toHaveBeenCalled();

    const empty = submenu(
      named(
        submenu(menuTemplate({ actions: act, recent: [], development: false, platform: 'linux' })[0]),
        'Open Recent',
      ),
    );
    expect(empty[0]).toMatchObject({ label: 'No recent files', enabled: false });
    expect(named(empty, 'Clear Recent')?.enabled).toBe(false);
  });

  it('keeps About and Quit in the application menu on macOS', () => {
    const menu = menuTemplate({ actions: actions(), recent: [], development: false, platform: 'darwin' });
    expect(labels(menu)).toEqual(['Towpath', '&File', '&Edit', '&View', '&Help']);
    expect(submenu(menu[0]).some((item) => item.role === 'quit')).toBe(true);
    expect(labels(submenu(menu[1]))).not.toContain('Quit');
  });

  it('has a Machine menu, before Help, once its items are given', () => {
    const estop = { label: 'Emergency Stop', accelerator: 'CmdOrCtrl+.' };
    const menu = menuTemplate({
      actions: actions(),
      recent: [],
      development: false,
      platform: 'linux',
      machine: [estop],
    });
    expect(labels(menu)).toEqual(['&File', '&Edit', '&View', '&Machine', '&Help']);
    expect(submenu(named(menu, '&Machine'))).toEqual([estop]);
  });
});
