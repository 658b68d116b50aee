import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { descriptorPath, realLocation } from './real-location.ts';

/** A write refused because the file turned out to be somewhere it must not be. */
export class LocationRefused extends Error {
  override name = 'LocationRefused';
}

export interface AtomicWriteOptions {
  /**
   * Called with the real location of the file being written, as the OS reports it for the open
   * descriptor: once before any byte is written, again before the rename, and with the final path
   * after it. Throws (a `LocationRefused`) to refuse; the file is then removed wherever it is.
   */
  checkLocation?: (realPath: string) => void;
}

// `.<name>.<pid>.<random>.tmp`: hidden, and naming the process that writes it, so start-up can tell
// a crash's leftovers from another live process's work in progress.
const TEMPORARY = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/** The temporary name `writeFileAtomically` uses for `target` in the current process. */
function temporaryName(target: string): string {
  return `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** The pid in a temporary file's name, or undefined when the name is not one of ours. */
export function temporaryOwner(name: string): number | undefined {
  const match = TEMPORARY.exec(name);
  return match ? Number(match[2]) : undefined;
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Writes a file so that readers only ever see the old file or the complete new one: the chunks go
 * to a temporary file in the same folder (so the rename cannot cross file systems), which is
 * flushed and then renamed over the target. On any failure the temporary file is removed and an
 * existing target is left as it was.
 *
 * The temporary file is created with `O_EXCL | O_NOFOLLOW`, so it is always a new file of ours and
 * never a link planted under its name; `checkLocation` then sees where it really is, so a folder
 * swapped for a symlink while the plan runs cannot carry the output somewhere else.
 *
 * `produce` is handed a `write` function and may call it any number of times; each chunk is
 * written before `write` returns, so a producer may reuse its buffer. The writes are synchronous:
 * a producer that runs long should yield to the event loop between chunks itself.
 */
export async function writeFileAtomically<T>(
  target: string,
  produce: (write: (chunk: Uint8Array) => void) => T | Promise<T>,
  { checkLocation = () => {} }: AtomicWriteOptions = {},
): Promise<T> {
  const temporary = join(dirname(target), temporaryName(target));
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
    0o644,
  );
  let renamed = false;
  try {
    checkLocation(realLocation(fd, temporary));
    const result = await produce((chunk) => {
      let offset = 0;
      while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
    });
    fsyncSync(fd);
    const before = realLocation(fd, temporary);
    checkLocation(before);
    // The folder the file is really in, under the target's name: if that folder was moved or
    // swapped since the start, the rename would put the file somewhere other than `target`.
    if (dirname(before) !== dirname(target)) throw new LocationRefused('the folder changed while writing');
    renameSync(before, target);
    renamed = true;
    checkLocation(realLocation(fd, target));
    closeSync(fd);
    return result;
  } catch (error) {
    removeOwnFile(fd, renamed ? target : temporary);
    closeSync(fd);
    throw error;
  }
}

/** How often removal is retried while the file's folder keeps moving under it. */
const REMOVE_ATTEMPTS = 1000;

/**
 * Removes the file open as `fd` wherever it is now, but only when the name there is still the one
 * it was written under: never a file of someone else's that took its place. Without `unlinkat`
 * the removal goes by path, so a folder renamed between finding the file and removing it makes
 * the attempt miss; it is then tried again from the file's new place.
 */
function removeOwnFile(fd: number, path: string): void {
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
    const located = descriptorPath(fd);
    if (located === null) return;
    const current = located ?? path;
    if (basename(current) !== basename(path)) return;
    try {
      const [opened, found] = [fstatSync(fd), lstatSync(current)];
      if (opened.ino !== found.ino || opened.dev !== found.dev) return;
      unlinkSync(current);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (located === undefined || (code !== 'ENOENT' && code !== 'ENOTDIR')) return;
    }
  }
}
