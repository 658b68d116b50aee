import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, startTestWorkstation } from './testing/workstation.ts';
import {
  announceWorkstation,
  loopbackUrl,
  readWorkstationFile,
  WORKSTATION_FILE,
} from './workstation-file.ts';

/** A pid above Linux's largest (2^22): no process has it. */
const DEAD_PID = 2 ** 22 + 1;

describe('workstation.json', () => {
  it('names both doors over loopback whatever address they listen on', () => {
    expect(loopbackUrl('http://0.0.0.0:4001')).toBe('http://127.0.0.1:4001');
    expect(loopbackUrl('http://[::]:4001')).toBe('http://127.0.0.1:4001');
    expect(loopbackUrl('http://192.168.1.20:8000')).toBe('http://127.0.0.1:8000');
    expect(loopbackUrl('http://[::1]:8000')).toBe('http://[::1]:8000');
  });

  it('is written 0600 with pid, URLs and start time, and removed again', async () => {
    const dir = await makeTempDir();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const remove = await announceWorkstation(
      dir,
      { lan: 'http://0.0.0.0:4001', winding: 'http://127.0.0.1:8000' },
      now,
    );
    const path = join(dir, WORKSTATION_FILE);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      pid: process.pid,
      lanUrl: 'http://127.0.0.1:4001',
      windingUrl: 'http://127.0.0.1:8000',
      startedAt: '2026-11-23T10:00:00.000Z',
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readWorkstationFile(dir)).toMatchObject({ pid: process.pid });
    await remove();
    await expect(stat(path)).rejects.toThrow();
  });

  it('replaces a stale file, and leaves a newer workstation’s file when it stops', async () => {
    const dir = await makeTempDir();
    const path = join(dir, WORKSTATION_FILE);
    const stale = { pid: DEAD_PID, lanUrl: 'http://127.0.0.1:1', windingUrl: 'http://127.0.0.1:2' };
    await writeFile(path, JSON.stringify({ ...stale, startedAt: '2026-01-01T00:00:00.000Z' }));
    expect(await readWorkstationFile(dir)).toBeUndefined();
    const remove = await announceWorkstation(dir, {
      lan: 'http://127.0.0.1:3',
      winding: 'http://127.0.0.1:4',
    });
    expect(await readWorkstationFile(dir)).toMatchObject({ pid: process.pid, lanUrl: 'http://127.0.0.1:3' });
    // Another workstation took over the file: stopping this one must not remove it.
    const other = { pid: process.ppid, lanUrl: 'http://127.0.0.1:5', windingUrl: 'http://127.0.0.1:6' };
    await writeFile(path, JSON.stringify({ ...other, startedAt: '2026-01-01T00:00:00.000Z' }));
    await remove();
    expect(await readWorkstationFile(dir)).toMatchObject(other);
  });

  it('reads a damaged file as no workstation', async () => {
    const dir = await makeTempDir();
    for (const text of ['', 'null', '[]', '{"pid":"1"}', `{"pid":${process.pid},"lanUrl":1}`]) {
      await writeFile(join(dir, WORKSTATION_FILE), text);
      expect(await readWorkstationFile(dir)).toBeUndefined();
    }
  });

  it('is written by a running core once both doors listen, and removed by stop()', async () => {
    const ws = await startTestWorkstation({ HOST: '0.0.0.0' });
    const path = join(ws.dataDir, WORKSTATION_FILE);
    try {
      const info = JSON.parse(await readFile(path, 'utf8'));
      expect(info).toMatchObject({
        pid: process.pid,
        lanUrl: `http://127.0.0.1:${new URL(ws.urls.lan).port}`,
        windingUrl: ws.urls.winding,
      });
      expect(Date.parse(info.startedAt)).not.toBeNaN();
      expect((await fetch(`${info.lanUrl}/healthz`)).status).toBe(200);
      await ws.stop();
      await expect(stat(path)).rejects.toThrow();
    } finally {
      await ws.dispose();
    }
  });
});
