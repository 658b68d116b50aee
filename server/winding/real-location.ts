// Where an open file really is, asked of the OS through its descriptor: a path checked before it
// was opened may have pointed somewhere else by the time it was (a folder swapped for a symlink).
import { fstatSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';

/**
 * Where an open file really is now, after every symlink and rename: Linux reports it through
 * /proc. Null once the file has been deleted; undefined where the OS does not tell.
 */
export function descriptorPath(fd: number): string | null | undefined {
  let path: string;
  try {
    path = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
  return path.endsWith(' (deleted)') ? null : path;
}

/** The real location of the file open as `fd`, opened as `path`: through the descriptor where possible. */
export function realLocation(fd: number, path: string): string {
  const real = descriptorPath(fd);
  if (real === null) throw new Error('the file was removed');
  if (real !== undefined) return real;
  // Without /proc the path is resolved instead, and the inode compared, so a file swapped in under
  // the same name is still noticed.
  const resolved = realpathSync(path);
  const [opened, found] = [fstatSync(fd), lstatSync(resolved)];
  if (opened.ino !== found.ino || opened.dev !== found.dev) throw new Error('the file was replaced');
  return resolved;
}
