// The built single executable (scripts/build-sidecar.ts) runs without Node: health against the
// fake host, and tools/list over stdio with the 16 task tools and the 4 winding tools. Builds it
// first when missing or older than the sources.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHost, startFakeHost } from '../../bridge/fake-host/server.ts';
import { connectMcp } from '../../bridge/testing/run-bridge.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { REPO_ROOT, runNode } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';

const SIDECAR = join(
  REPO_ROOT,
  'dist',
  'sidecar',
  process.platform === 'win32' ? 'towpath-bridge.exe' : 'towpath-bridge',
);

function newestSource(): number {
  const sources = [join(REPO_ROOT, 'scripts', 'build-sidecar.ts'), join(REPO_ROOT, 'package.json')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) sources.push(path);
    }
  };
  for (const dir of ['bridge', 'engine', 'server']) walk(join(REPO_ROOT, dir));
  return Math.max(...sources.map((path) => statSync(path).mtimeMs));
}

describe('sidecar executable', () => {
  let host: FakeHost;

  beforeAll(async () => {
    if (!existsSync(SIDECAR) || statSync(SIDECAR).mtimeMs < newestSource()) {
      const build = await runNode('scripts/build-sidecar.ts', []);
      expect(build.code, build.stderr).toBe(0);
    }
    host = await startFakeHost({ version: '18.17.0', token: 'side', seed: 'clean' });
  }, 180_000);
  afterAll(() => host?.close());

  it('answers health --format json against the fake host', async () => {
    const { stdout } = await promisify(execFile)(SIDECAR, ['health', '--format', 'json'], {
      env: { TASK_HOST_URL: host.url, TASK_HOST_TOKEN: 'side', HOME: '/nonexistent' },
    });
    expect(JSON.parse(stdout)).toEqual({
      hostUrl: host.url,
      server: 'up',
      rendererReady: true,
      tokenSource: 'env',
      taskCount: 4,
      currentTaskId: null,
    });
  });

  it('lists the 16 task tools and the 4 winding tools over stdio, and runs a winding tool', async () => {
    const home = await makeTempDir();
    const { client } = await connectMcp(SIDECAR, ['mcp'], {
      TASK_HOST_URL: host.url,
      HOME: home,
      TOWPATH_DATA_DIR: join(home, 'data'),
    });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(20);
      expect(tools.slice(16).map((tool) => tool.name)).toEqual([
        'validate_wind',
        'plan_wind',
        'simulate_gcode',
        'machine_status',
      ]);
      const input = join(home, 'part.wind');
      await copyFile(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), input);
      expect(
        (await client.callTool({ name: 'validate_wind', arguments: { path: input } })).structuredContent,
      ).toEqual({
        status: 'ok',
        path: input,
      });
      expect(client.getServerVersion()?.name).toBe('towpath-bridge');
    } finally {
      await client.close();
    }
  });
});
