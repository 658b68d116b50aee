import { stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../bridge/version.ts';
import { loadConfig } from './config/index.ts';
import { StartupError } from './errors.ts';
import { RENDERER_CSP } from './lan/csp.ts';
import { startWorkstation } from './main.ts';
import {
  makeTempDir,
  startTestWorkstation,
  TEST_INDEX_HTML,
  type TestWorkstation,
} from './testing/workstation.ts';

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

const html = { accept: 'text/html,application/xhtml+xml' };

describe('startWorkstation', () => {
  it('answers /healthz on both doors with the version', async () => {
    ws = await startTestWorkstation();
    for (const url of [ws.urls.lan, ws.urls.winding]) {
      const response = await fetch(`${url}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok', version: VERSION });
    }
    expect(ws.urls.lan).not.toBe(ws.urls.winding);
    expect(ws.urls.lan).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('creates a missing data dir, private to the user', async () => {
    ws = await startTestWorkstation();
    const info = await stat(ws.dataDir);
    expect(info.isDirectory()).toBe(true);
    expect(info.mode & 0o777).toBe(0o700);
  });

  it('serves the renderer at / with its security headers', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.lan}/`, { headers: html });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(TEST_INDEX_HTML);
    expect(response.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const asset = await fetch(`${ws.urls.lan}/assets/app-1234.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('falls back to the app page for client-side addresses, but not for APIs or files', async () => {
    ws = await startTestWorkstation();
    for (const path of ['/winding', '/admin/users', '/dashboards?id=3']) {
      const response = await fetch(`${ws.urls.lan}${path}`, { headers: html });
      expect(response.status, path).toBe(200);
      expect(await response.text()).toBe(TEST_INDEX_HTML);
    }
    for (const path of ['/api/nothing', '/graphqlx', '/assets/missing.js', '/internal/gateway/x']) {
      const response = await fetch(`${ws.urls.lan}${path}`, { headers: html });
      expect(response.status, path).toBe(404);
      expect((await response.json()).detail).toMatch(/not found/);
    }
    const api = await fetch(`${ws.urls.lan}/winding`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
  });

  it('says plainly when the renderer is not built', async () => {
    const root = await makeTempDir();
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', WINDING_PORT: '0', TOWPATH_DATA_DIR: root });
    const bare = await startWorkstation(
      { ...config, rendererDir: join(root, 'nowhere') },
      { logger: pino({ level: 'silent' }) },
    );
    try {
      const response = await fetch(`${bare.urls.lan}/`, { headers: html });
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('npm run build');
    } finally {
      await bare.stop();
    }
  });

  it('answers unknown winding-door routes with a JSON 404', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.winding}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });

  it('stops both doors, and stopping twice is harmless', async () => {
    ws = await startTestWorkstation();
    const { lan, winding } = ws.urls;
    await ws.stop();
    await ws.stop();
    await expect(fetch(`${lan}/healthz`)).rejects.toThrow();
    await expect(fetch(`${winding}/healthz`)).rejects.toThrow();
  });

  it('refuses a port already in use with one clear line and leaves nothing listening', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const root = await makeTempDir();
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: String(port),
      WINDING_PORT: '0',
      TOWPATH_DATA_DIR: root,
    });
    try {
      const attempt = startWorkstation(config, { logger: pino({ level: 'silent' }) });
      await expect(attempt).rejects.toBeInstanceOf(StartupError);
      await expect(attempt).rejects.toThrow(
        `cannot start the LAN door on 127.0.0.1:${port}: the port is already in use`,
      );
    } finally {
      blocker.close();
    }
  });

  it('refuses a data dir it cannot create', async () => {
    const root = await makeTempDir();
    const file = join(root, 'a-file');
    await writeFile(file, 'not a folder');
    const config = loadConfig({ PORT: '0', WINDING_PORT: '0', TOWPATH_DATA_DIR: join(file, 'data') });
    const attempt = startWorkstation(config, { logger: pino({ level: 'silent' }) });
    await expect(attempt).rejects.toBeInstanceOf(StartupError);
    await expect(attempt).rejects.toThrow(`data dir ${join(file, 'data')} is not usable (ENOTDIR)`);
  });
});
