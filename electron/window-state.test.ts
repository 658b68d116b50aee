import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../server/testing/workstation.ts';
import { isVisible, loadWindowState, rememberWindowState, WINDOW_STATE } from './window-state.ts';

const SCREEN = [{ x: 0, y: 0, width: 1920, height: 1080 }];

describe('window state', () => {
  it('remembers size, position and maximized when the window closes', async () => {
    const dir = await makeTempDir();
    expect(loadWindowState(dir, SCREEN)).toBeUndefined();
    const window = Object.assign(new EventEmitter(), {
      getNormalBounds: () => ({ x: 100, y: 80, width: 1000, height: 700 }),
      isMaximized: () => true,
      isFullScreen: () => false,
    });
    rememberWindowState(window, dir);
    window.emit('close');
    expect(loadWindowState(dir, SCREEN)).toEqual({
      bounds: { x: 100, y: 80, width: 1000, height: 700 },
      maximized: true,
      fullScreen: false,
    });
  });

  it('forgets a place that is off every screen, too small, or damaged', async () => {
    const dir = await makeTempDir();
    const save = (value: unknown) => writeFileSync(join(dir, WINDOW_STATE), JSON.stringify(value));
    save({ bounds: { x: 2500, y: 100, width: 1000, height: 700 } });
    expect(loadWindowState(dir, SCREEN)).toBeUndefined();
    expect(loadWindowState(dir, [...SCREEN, { x: 1920, y: 0, width: 2560, height: 1440 }])).toBeDefined();
    save({ bounds: { x: 0, y: 0, width: 200, height: 100 } });
    expect(loadWindowState(dir, SCREEN)).toBeUndefined();
    save({ bounds: { x: '0', y: 0, width: 1000, height: 700 } });
    expect(loadWindowState(dir, SCREEN)).toBeUndefined();
    writeFileSync(join(dir, WINDOW_STATE), 'garbage');
    expect(loadWindowState(dir, SCREEN)).toBeUndefined();
  });

  it('counts a window as visible only when its title bar can be grabbed', () => {
    expect(isVisible({ x: -950, y: 10, width: 1000, height: 700 }, SCREEN)).toBe(false);
    expect(isVisible({ x: -800, y: 10, width: 1000, height: 700 }, SCREEN)).toBe(true);
    expect(isVisible({ x: 100, y: 1070, width: 1000, height: 700 }, SCREEN)).toBe(false);
  });
});
