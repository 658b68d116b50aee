// `npm start`: the desktop app when Electron's binary is here (it is downloaded on first run);
// otherwise one clear line saying so, then the headless core with the URL to open.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { main as towpath } from '../server/cli/main.ts';

const DOWNLOAD_TIMEOUT_MS = 180_000;
const electronDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));

function installedBinary(): string | undefined {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

/** Returns the Electron binary, downloading it once if needed, or the reason there is none. */
function electronBinary(): { binary: string } | { reason: string } {
  const present = installedBinary();
  if (present) return { binary: present };
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
    encoding: 'utf8',
    timeout: DOWNLOAD_TIMEOUT_MS,
  });
  const downloaded = installedBinary();
  if (result.status === 0 && downloaded) return { binary: downloaded };
  const firstLine = `${result.stderr ?? ''}${result.error?.message ?? ''}`.trim().split('\n')[0];
  return { reason: `its binary could not be downloaded: ${firstLine || `exit code ${result.status}`}` };
}

function hasDisplay(): boolean {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

const electron = electronBinary();
if ('binary' in electron && hasDisplay()) {
  const child = spawn(electron.binary, ['.'], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  const problem =
    'reason' in electron
      ? `Electron is not installed (${electron.reason})`
      : 'Electron cannot open a window here (no display)';
  console.error(`${problem}; starting the headless core instead.`);
  process.exitCode = await towpath(['serve']);
}
