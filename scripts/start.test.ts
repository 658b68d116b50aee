import { describe, expect, it } from 'vitest';
import { startNode } from '../server/testing/process.ts';
import { makeTempDir } from '../server/testing/workstation.ts';

describe('npm start', () => {
  it('falls back to the headless core with one clear line where Electron cannot run', async () => {
    const dataDir = await makeTempDir();
    // No display: even with Electron's binary present the desktop cannot open, so the fallback runs.
    const start = startNode('scripts/start.ts', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      WINDING_PORT: '0',
      TOWPATH_DATA_DIR: dataDir,
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
    });
    try {
      const [, lan] = await start.waitFor(/Open (http:\/\/[^/]+)\//);
      const [first] = start.stderr().split('\n');
      expect(first).toMatch(
        /^Electron (is not installed \(.+\)|cannot open a window here \(no display\)); starting the headless core instead\.$/,
      );
      expect((await fetch(`${lan}/healthz`)).status).toBe(200);
      start.child.kill('SIGTERM');
      expect((await start.finished).code).toBe(0);
    } finally {
      start.child.kill('SIGKILL');
    }
  });
});
