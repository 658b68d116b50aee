// `npm run dist -- --dir` offline: a stand-in Electron folder (ELECTRON_DIST) instead of the
// download, so what is checked is the packaging itself — what lands in the asar, beside it and
// unpacked from it.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../server/testing/process.ts';

interface AsarEntry {
  files?: Record<string, AsarEntry>;
  unpacked?: boolean;
}

/** The paths in an asar archive (its header is a length-prefixed JSON tree), unpacked ones marked. */
function asarPaths(file: string): Map<string, { unpacked: boolean }> {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(16);
  readSync(fd, head, 0, 16, 0);
  const json = Buffer.alloc(head.readUInt32LE(12));
  readSync(fd, json, 0, json.length, 16);
  const paths = new Map<string, { unpacked: boolean }>();
  const walk = (entry: AsarEntry, at: string) => {
    for (const [name, child] of Object.entries(entry.files ?? {})) {
      const path = `${at}/${name}`;
      paths.set(path, { unpacked: child.unpacked === true });
      walk(child, path);
    }
  };
  walk(JSON.parse(json.toString('utf8')) as AsarEntry, '');
  return paths;
}

const work = mkdtempSync(join(tmpdir(), 'towpath-dist-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm run dist -- --dir (offline, stand-in Electron)', () => {
  it('packs the main bundle, renderer, examples and dependencies, the sidecar, and native modules unpacked', () => {
    for (const built of ['dist/renderer/index.html', 'dist/electron/main.js']) {
      if (existsSync(join(REPO_ROOT, built))) continue;
      const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
      expect(build.status).toBe(0);
      break;
    }
    const electron = join(work, 'electron');
    const out = join(work, 'out');
    mkdirSync(join(electron, 'resources'), { recursive: true });
    writeFileSync(join(electron, 'electron'), '#!/bin/sh\necho stand-in electron\n');
    chmodSync(join(electron, 'electron'), 0o755);
    writeFileSync(join(electron, 'version'), 'v45.4.1');
    writeFileSync(join(electron, 'LICENSE'), '');

    const dist = spawnSync(process.execPath, ['scripts/dist.ts', '--dir', '--out', out], {
      cwd: REPO_ROOT,
      env: { ...process.env, ELECTRON_DIST: electron },
      encoding: 'utf8',
    });
    expect(dist.status, dist.stderr + dist.stdout).toBe(0);

    const unpackedApp = readdirSync(out).find((name) => name.endsWith('-unpacked')) as string;
    const appDir = join(out, unpackedApp);
    expect(statSync(join(appDir, 'towpath')).mode & 0o111).not.toBe(0);
    const resources = join(appDir, 'resources');
    const asar = asarPaths(join(resources, 'app.asar'));
    for (const path of [
      '/package.json',
      '/dist/electron/main.js',
      '/dist/electron/machine.js',
      '/dist/electron/planner-thread.js',
      '/dist/electron/preload.cjs',
      '/dist/renderer/index.html',
      '/resources/examples/simple-cylinder.wind',
      '/node_modules/fastify/package.json',
      // A dependency of a dependency: the whole production tree is packed, not just the top.
      '/node_modules/avvio/package.json',
      '/node_modules/serialport/package.json',
    ])
      expect(asar.has(path), path).toBe(true);
    expect([...asar.keys()].some((path) => path.startsWith('/dist/renderer/assets/'))).toBe(true);
    expect([...asar.keys()].some((path) => /^\/(server|engine|electron|e2e|scripts)\//.test(path))).toBe(
      false,
    );
    expect([...asar.keys()].some((path) => path.startsWith('/node_modules/vitest/'))).toBe(false);

    const sidecar = join(resources, 'sidecar', 'towpath-bridge');
    expect(statSync(sidecar).mode & 0o111).not.toBe(0);

    const target = `${process.platform}-${process.arch}`;
    const natives = [
      `/node_modules/better-sqlite3/prebuilds/${target}.node`,
      ...readdirSync(join(REPO_ROOT, 'node_modules/@serialport/bindings-cpp/prebuilds', target)).map(
        (name) => `/node_modules/@serialport/bindings-cpp/prebuilds/${target}/${name}`,
      ),
    ];
    for (const path of natives) {
      expect(asar.get(path), path).toEqual({ unpacked: true });
      expect(existsSync(join(resources, 'app.asar.unpacked', path)), path).toBe(true);
    }
    // Only the target platform's prebuilds ship.
    const foreign = process.platform === 'win32' ? 'darwin' : 'win32';
    expect([...asar.keys()].some((path) => path.includes(`/prebuilds/${foreign}-`))).toBe(false);
  }, 240_000);
});
