// Runs sandboxed in the renderer before the page; exposes only the small typed API below.
import { contextBridge, ipcRenderer } from 'electron';
import { VERSION } from '../server/version.ts';
import {
  OPEN_FILE_CHANNEL,
  type OpenFileKind,
  READ_FILE_CHANNEL,
  type TowpathDesktopApi,
} from './preload-api.ts';

const api: TowpathDesktopApi = {
  version: VERSION,
  openFile: (kind: OpenFileKind) => ipcRenderer.invoke(OPEN_FILE_CHANNEL, kind),
  readFile: (path: string, offset: number, length: number) =>
    ipcRenderer.invoke(READ_FILE_CHANNEL, path, offset, length),
};

contextBridge.exposeInMainWorld('towpath', api);
