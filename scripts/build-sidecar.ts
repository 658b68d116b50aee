// `npm run build:sidecar`: the task bridge as one executable, dist/sidecar/towpath-bridge, that AI
// assistants and scripts run without Node. esbuild bundles the bridge into one CommonJS file and
// Node's single-executable support embeds it in a copy of the pinned Node binary. Offline: every
// input is already in node_modules.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist', 'sidecar');
const NAME = process.platform === 'win32' ? 'towpath-bridge.exe' : 'towpath-bridge';
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}

// The executable embeds the Node that runs this script, so it must be the pinned major.
if (!process.version.startsWith('v22.')) {
  console.error(`build-sidecar: needs the pinned Node 22 (npm run build:sidecar), not ${process.version}`);
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'towpath-sidecar-'));
try {
  const bundle = join(work, 'towpath-bridge.cjs');
  await build({
    // The combined entry: the bridge's CLI plus the workstation's winding tools in `mcp`.
    entryPoints: [join(ROOT, 'server', 'mcp', 'sidecar.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    outfile: bundle,
    // cli.ts runs itself only as an ES module entry; in the bundle sidecar.ts does that. A CommonJS
    // bundle has no import.meta: server/config/index.ts's folder defaults (unused here) use __dirname.
    define: { 'import.meta.main': 'false', 'import.meta.dirname': '__dirname' },
    legalComments: 'none',
    logLevel: 'warning',
  });

  const blob = join(work, 'sea-prep.blob');
  const seaConfig = join(work, 'sea-config.json');
  writeFileSync(
    seaConfig,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  run(process.execPath, ['--experimental-sea-config', seaConfig]);

  const staged = join(work, NAME);
  copyFileSync(process.execPath, staged);
  chmodSync(staged, 0o755);
  if (process.platform === 'darwin') run('codesign', ['--remove-signature', staged]);
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  const macho = process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : [];
  run(process.execPath, [postject, staged, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE, ...macho]);
  if (process.platform === 'darwin') run('codesign', ['--sign', '-', staged]);

  // Rename into place so a reader never sees a half-written executable.
  mkdirSync(OUT_DIR, { recursive: true });
  const target = join(OUT_DIR, NAME);
  const next = `${target}.${process.pid}.tmp`;
  copyFileSync(staged, next);
  chmodSync(next, 0o755);
  renameSync(next, target);
  console.log(`built ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
