// The main window's size and position, remembered in the data dir. A saved place that no longer
// lies on any screen (a monitor unplugged since) is dropped rather than opening the window off-screen.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WINDOW_STATE = 'window-state.json';

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Rectangle;
  maximized: boolean;
  fullScreen: boolean;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 };
export const MIN_SIZE = { width: 800, height: 560 };

const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

function parse(value: unknown): WindowState | undefined {
  const state = value as Partial<WindowState> | null;
  const b = state?.bounds as Partial<Rectangle> | undefined;
  if (!b || !isInt(b.x) || !isInt(b.y) || !isInt(b.width) || !isInt(b.height)) return undefined;
  if (b.width < MIN_SIZE.width || b.height < MIN_SIZE.height || b.width > 20_000 || b.height > 20_000)
    return undefined;
  return {
    bounds: { x: b.x, y: b.y, width: b.width, height: b.height },
    maximized: state?.maximized === true,
    fullScreen: state?.fullScreen === true,
  };
}

/** Whether enough of the window (its title bar area) is on one of the screens' work areas. */
export function isVisible(bounds: Rectangle, workAreas: Rectangle[]): boolean {
  const titleBar = { x: bounds.x, y: bounds.y, width: bounds.width, height: 40 };
  return workAreas.some((area) => {
    const width = Math.min(titleBar.x + titleBar.width, area.x + area.width) - Math.max(titleBar.x, area.x);
    const height =
      Math.min(titleBar.y + titleBar.height, area.y + area.height) - Math.max(titleBar.y, area.y);
    return width >= 100 && height >= 20;
  });
}

export function loadWindowState(dataDir: string, workAreas: Rectangle[]): WindowState | undefined {
  let state: WindowState | undefined;
  try {
    state = parse(JSON.parse(readFileSync(join(dataDir, WINDOW_STATE), 'utf8')));
  } catch {
    return undefined;
  }
  return state && isVisible(state.bounds, workAreas) ? state : undefined;
}

export function saveWindowState(dataDir: string, state: WindowState): void {
  const file = join(dataDir, WINDOW_STATE);
  try {
    writeFileSync(`${file}.tmp`, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  } catch {
    // Not remembering the window is no reason to fail.
  }
}

/** What Electron's window tells us, kept as the normal (not maximized) bounds for next time. */
export interface TrackedWindow {
  getNormalBounds(): Rectangle;
  isMaximized(): boolean;
  isFullScreen(): boolean;
  on(event: 'close' | 'resize' | 'move', listener: () => void): unknown;
}

/** Saves the window's place when it closes. */
export function rememberWindowState(window: TrackedWindow, dataDir: string): void {
  window.on('close', () =>
    saveWindowState(dataDir, {
      bounds: window.getNormalBounds(),
      maximized: window.isMaximized(),
      fullScreen: window.isFullScreen(),
    }),
  );
}
