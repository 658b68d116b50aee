// The application menu. Built from plain data so tests can read it without Electron; desktop.ts
// supplies the actions. The "Machine" menu is left for the machine's own items (the emergency stop
// of electron/estop.ts): pass them as `machine` and it appears between View and Help.
import type { MenuItemConstructorOptions } from 'electron';
import type { OpenFileKind, RecentFile } from './preload-api.ts';

export interface MenuActions {
  open(kind: OpenFileKind): void;
  openRecent(file: RecentFile): void;
  clearRecent(): void;
  saveGcode(): void;
  documentation(): void;
  about(): void;
}

export interface MenuOptions {
  actions: MenuActions;
  recent: RecentFile[];
  /** Developer tools are offered only while developing, never in a packaged app. */
  development: boolean;
  platform: NodeJS.Platform;
  /** Items of the Machine menu; the menu is left out until someone supplies them. */
  machine?: MenuItemConstructorOptions[];
}

const basename = (path: string) => path.split(/[\\/]/).at(-1) ?? path;

export function menuTemplate({
  actions,
  recent,
  development,
  platform,
  machine,
}: MenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const recentItems: MenuItemConstructorOptions[] =
    recent.length === 0
      ? [{ label: 'No recent files', enabled: false }]
      : recent.map((file) => ({
          label: basename(file.path),
          sublabel: file.path,
          toolTip: file.path,
          click: () => actions.openRecent(file),
        }));
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { label: 'Open Winding Definition…', accelerator: 'CmdOrCtrl+O', click: () => actions.open('wind') },
      { label: 'Open G-code…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.open('gcode') },
      {
        label: 'Open Recent',
        submenu: [
          ...recentItems,
          { type: 'separator' },
          { label: 'Clear Recent', enabled: recent.length > 0, click: () => actions.clearRecent() },
        ],
      },
      { type: 'separator' },
      { label: 'Save G-code…', accelerator: 'CmdOrCtrl+S', click: () => actions.saveGcode() },
      ...(mac ? [] : [{ type: 'separator' } as const, { label: 'Quit', role: 'quit' } as const]),
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(development
        ? [{ type: 'separator' } as const, { role: 'reload' } as const, { role: 'toggleDevTools' } as const]
        : []),
    ],
  };
  const help: MenuItemConstructorOptions = {
    label: '&Help',
    role: 'help',
    submenu: [
      { label: 'Documentation', click: () => actions.documentation() },
      ...(mac ? [] : [{ label: 'About Towpath', click: () => actions.about() }]),
    ],
  };
  return [
    // macOS keeps About and Quit in the application's own menu.
    ...(mac
      ? [
          {
            label: 'Towpath',
            submenu: [
              { label: 'About Towpath', click: () => actions.about() },
              { type: 'separator' },
              { role: 'hide' },
              { role: 'hideOthers' },
              { role: 'unhide' },
              { type: 'separator' },
              { role: 'quit' },
            ],
          } satisfies MenuItemConstructorOptions,
        ]
      : []),
    file,
    // Copy and paste in text fields need the Edit roles (on macOS they work only through the menu).
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    view,
    ...(machine && machine.length > 0 ? [{ label: '&Machine', submenu: machine }] : []),
    help,
  ];
}
