// The desktop app's preload API (absent in a plain browser): every use must have a browser path too.
import type { MenuCommand, TowpathDesktopApi } from '../../../electron/preload-api.ts';

export type { MenuCommand, TowpathDesktopApi };

export function desktopApi(): TowpathDesktopApi | undefined {
  return (window as { towpath?: TowpathDesktopApi }).towpath;
}
