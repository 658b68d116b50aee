import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that readers only ever see the old file or the complete new one: the chunks go
 * to a temporary file in the same folder (so the rename cannot cross file systems), which is
 * flushed and then renamed over the target. On any failure the temporary file is removed and an
 * existing target is left as it was.
 *
 * `produce` is handed a `write` function and may call it any number of times; each chunk is
 * written before `write` returns, so a producer may reuse its buffer. The writes are synchronous:
 * a producer that runs long should yield to the event loop between chunks itself.
 */
export async function writeFileAtomically<T>(
  target: string,
  produce: (write: (chunk: Uint8Array) => void) => T | Promise<T>,
): Promise<T> {
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o644);
  let closed = false;
  try {
    const result = await produce((chunk) => {
      let offset = 0;
      while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
    });
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    renameSync(temporary, target);
    return result;
  } catch (error) {
    if (!closed) closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
}
