// Runs sandboxed in the renderer before the page; exposes only the small typed API below.
import { contextBridge, ipcRenderer } from 'electron';
import { VERSION } from '../bridge/version.ts';
import {
  LAUNCH_FILES_CHANNEL,
  MENU_COMMAND_CHANNEL,
  type MenuCommand,
  OPEN_FILE_CHANNEL,
  type OpenFileKind,
  READ_FILE_CHANNEL,
  RECENT_FILES_CHANNEL,
  SAVE_FILE_CHANNEL,
  type TowpathDesktopApi,
  WRITE_FILE_CHANNEL,
} from './preload-api.ts';

const api: TowpathDesktopApi = {
  version: VERSION,
  openFile: (kind: OpenFileKind) => ipcRenderer.invoke(OPEN_FILE_CHANNEL, kind),
  saveFile: (options) => ipcRenderer.invoke(SAVE_FILE_CHANNEL, options),
  recentFiles: () => ipcRenderer.invoke(RECENT_FILES_CHANNEL),
  launchFiles: () => ipcRenderer.invoke(LAUNCH_FILES_CHANNEL),
  readFile: (path: string, offset: number, length: number) =>
    ipcRenderer.invoke(READ_FILE_CHANNEL, path, offset, length),
  writeFile: (path, bytes, at) => ipcRenderer.invoke(WRITE_FILE_CHANNEL, path, bytes, at),
  onMenuCommand: (listener) => {
    // The page gets the command only, never the IPC event (it would expose ipcRenderer).
    const forward = (_event: unknown, command: MenuCommand) => listener(command);
    ipcRenderer.on(MENU_COMMAND_CHANNEL, forward);
    return () => {
      ipcRenderer.off(MENU_COMMAND_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('towpath', api);
