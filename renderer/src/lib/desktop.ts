// The desktop app's preload API (absent in a plain browser): every use must have a browser path too.
import type { MenuCommand, TowpathDesktopApi } from '../../../electron/preload-api.ts';

export type { MenuCommand, TowpathDesktopApi };

export function desktopApi(): TowpathDesktopApi | undefined {
  return (window as { towpath?: TowpathDesktopApi }).towpath;
}

/**
 * The desktop app's native open dialog (definitions first; its "All files" filter reaches G-code),
 * handing the chosen path to `open`; undefined in a browser or a shell that cannot read files.
 */
export function nativeOpener(open: (path: string) => Promise<void>): (() => Promise<void>) | undefined {
  const api = desktopApi();
  if (api?.readFile === undefined) return undefined;
  return async () => {
    const chosen = await api.openFile('wind');
    if (!chosen.canceled) await open(chosen.path);
  };
}
