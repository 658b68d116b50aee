// `npm run dist -- [electron-builder options]` (after `npm run build`): desktop packages with
// electron-builder, e.g. `npm run dist -- --dir` for the unpacked app or `npm run dist -- --linux
// AppImage deb`. Electron's binaries normally download here; with ELECTRON_DIST pointing at an
// unpacked Electron folder (electron-builder's `electronDist`) nothing is downloaded.
//
// The app is staged in a temp folder first: only what ships (package.json without the dev side,
// dist/renderer, dist/electron, the examples, the sidecar) and node_modules, which electron-builder
// then walks on disk ("traversal"). Its `npm list` reading misses transitive dependencies when
// node_modules is shared or not a pristine `npm ci` tree; walking the folder does not.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIDECAR = join(
  ROOT,
  'dist',
  'sidecar',
  process.platform === 'win32' ? 'towpath-bridge.exe' : 'towpath-bridge',
);

function fail(message: string): never {
  process.stderr.write(`dist: ${message}\n`);
  process.exit(1);
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}

// `--out <dir>` is ours (where packages go; default dist/packages); everything else is electron-builder's.
const args = process.argv.slice(2);
let out = join(ROOT, 'dist', 'packages');
const at = args.indexOf('--out');
if (at !== -1) {
  const value = args[at + 1];
  if (!value) fail('--out needs a folder');
  out = resolve(value);
  args.splice(at, 2);
}

for (const built of ['dist/renderer/index.html', 'dist/electron/main.js', 'dist/electron/preload.cjs'])
  if (!existsSync(join(ROOT, built))) fail(`${built} is missing; run npm run build first`);
if (!existsSync(SIDECAR)) run(process.execPath, [join(ROOT, 'scripts', 'build-sidecar.ts')]);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const stage = mkdtempSync(join(tmpdir(), 'towpath-dist-'));
try {
  const shipped = {
    name: pkg.name,
    productName: pkg.productName,
    version: pkg.version,
    description: pkg.description,
    author: 'Towpath contributors',
    type: pkg.type,
    main: pkg.main,
    dependencies: pkg.dependencies,
    // Tells electron-builder to walk node_modules instead of asking the package manager.
    packageManager: 'traversal@1.0.0',
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
  mkdirSync(join(stage, 'dist'));
  for (const part of [
    'dist/renderer',
    'dist/electron',
    'dist/sidecar',
    'resources/examples',
    'resources/build',
  ])
    cpSync(join(ROOT, part), join(stage, part), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(stage, 'node_modules'), 'junction');

  const builder = join(
    ROOT,
    'node_modules',
    '.bin',
    process.platform === 'win32' ? 'electron-builder.cmd' : 'electron-builder',
  );
  const options = [
    '--projectDir',
    stage,
    '--config',
    join(ROOT, 'electron-builder.yml'),
    `-c.directories.output=${out}`,
  ];
  const electronDist = process.env.ELECTRON_DIST;
  if (electronDist) {
    if (!existsSync(electronDist)) fail(`ELECTRON_DIST=${electronDist} does not exist`);
    options.push(`-c.electronDist=${resolve(electronDist)}`);
  }
  run(builder, [...options, ...args]);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
