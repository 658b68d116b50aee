import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StartupError } from './errors.ts';

/**
 * Creates the data dir (0700: it will hold the database and secrets) if missing and proves it is
 * writable by writing and removing a probe file, so a read-only or mistyped folder fails at start
 * with a clear line instead of at the first save.
 */
export async function openDataDir(path: string): Promise<string> {
  const dir = resolve(path);
  const probe = join(dir, `.write-probe-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, '');
    await rm(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartupError(`data dir ${dir} is not usable (${code}): ${explain(code)}`);
  }
  return dir;
}

function explain(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file is in the way of the folder';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return 'cannot create or write to it';
  }
}
