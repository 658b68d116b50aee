// Reading an input file by path (spec/winding.md §2.1 rows 1–4; §5 for G-code): the checks run in
// the spec's order and every failure is the engine error of the file's kind with the spec's text.
// The UTF-8 check (row 5) belongs to the consumer: parseWindDefinition does it for `.wind` bytes;
// a G-code consumer of openInputFile feeds the chunks to engine/text/utf8.ts' Utf8Validator.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { getSystemErrorMessage } from 'node:util';
import { SimulationError, WindFileError } from '../../engine/errors.ts';
import { parseWindDefinition } from '../../engine/wind/index.ts';
import type { WindDefinition } from '../../engine/wind/types.ts';
import { realLocation } from './real-location.ts';

export type InputKind = 'wind' | 'gcode';

export interface InputOptions {
  /**
   * Called with the real location of the opened file (through its descriptor) before anything is
   * read; throws to refuse it. The winding door checks its roots again here: the path it checked
   * may have led elsewhere by the time the file was opened.
   */
  checkLocation?: (realPath: string) => void;
  /**
   * The largest file accepted, in bytes: MAX_INPUT_BYTES (the spec's §2.1 row 3) unless given.
   * `towpath simulate` passes Infinity: it streams a program of any size in bounded memory, and
   * must take whatever `towpath plan` wrote.
   */
  maxBytes?: number;
}

/** 64 MiB: the largest input file either kind accepts. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

// "Does not exist" the way Python's Path.exists() decides it (the reference checked with it).
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

// The C library's strerror texts (what the reference printed), lower-cased; anything else falls
// back to libuv's description, which is lower case already.
const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  EISDIR: 'is a directory',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in system',
  ENOMEM: 'cannot allocate memory',
  EBUSY: 'device or resource busy',
  ETXTBSY: 'text file busy',
  EAGAIN: 'resource temporarily unavailable',
  ENXIO: 'no such device or address',
  ENODEV: 'no such device',
  EINVAL: 'invalid argument',
  EOVERFLOW: 'value too large for defined data type',
  ESTALE: 'stale file handle',
};

/** The lower-case reason an OS error is reported with (`permission denied`, …). */
export function osErrorReason(error: unknown): string {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && REASONS[code]) return REASONS[code];
  if (typeof errno === 'number' && errno < 0) return getSystemErrorMessage(errno).toLowerCase();
  if (typeof code === 'string') return code.toLowerCase();
  return error instanceof Error ? error.message.toLowerCase() : 'unknown error';
}

function missingError(path: string, kind: InputKind): Error {
  return kind === 'wind'
    ? new WindFileError(`No wind definition found at ${path}`, { missing: true })
    : new SimulationError(`No file found at ${path}`, { missing: true });
}

function readError(path: string, kind: InputKind, reason: string): Error {
  return kind === 'wind'
    ? new WindFileError(`Could not read wind definition at ${path}: ${reason}`)
    : new SimulationError(`Could not read G-code at ${path}: ${reason}`, { unreadable: true });
}

const NOT_REGULAR = 'not a regular file';
/** The spec's wording (`64 MB` for 64 MiB). */
const tooLarge = (maxBytes: number) => `file is larger than ${maxBytes / (1024 * 1024)} MB`;

function checkStats(stats: Stats, path: string, kind: InputKind, maxBytes: number): void {
  if (!stats.isFile()) throw readError(path, kind, NOT_REGULAR);
  if (stats.size > maxBytes) throw readError(path, kind, tooLarge(maxBytes));
}

// Rows 1–3 on the path (stat follows symlinks), then open. O_NONBLOCK keeps a file swapped for a
// FIFO after the stat from blocking the open; fstat repeats rows 2–3 on what was really opened.
async function openChecked(
  path: string,
  kind: InputKind,
  shown: string,
  { checkLocation, maxBytes = MAX_INPUT_BYTES }: InputOptions = {},
): Promise<{ handle: FileHandle; size: number }> {
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && MISSING_CODES.has(code)) throw missingError(shown, kind);
    throw readError(shown, kind, osErrorReason(error));
  }
  checkStats(stats, shown, kind, maxBytes);
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw readError(shown, kind, osErrorReason(error));
  }
  if (checkLocation) {
    let real: string;
    try {
      real = realLocation(handle.fd, path);
    } catch (error) {
      await handle.close();
      throw readError(shown, kind, osErrorReason(error));
    }
    try {
      checkLocation(real);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  try {
    const opened = await handle.stat();
    checkStats(opened, shown, kind, maxBytes);
    return { handle, size: opened.size };
  } catch (error) {
    await handle.close();
    if (error instanceof WindFileError || error instanceof SimulationError) throw error;
    throw readError(shown, kind, osErrorReason(error));
  }
}

async function* readChunks(
  handle: FileHandle,
  path: string,
  kind: InputKind,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  let total = 0;
  try {
    for (;;) {
      const buffer = new Uint8Array(CHUNK_BYTES);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null));
      } catch (error) {
        throw readError(path, kind, osErrorReason(error));
      }
      if (bytesRead === 0) return;
      total += bytesRead;
      // The file may have grown since it was checked.
      if (total > maxBytes) throw readError(path, kind, tooLarge(maxBytes));
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** An opened input file: iterate once for its chunks; the handle closes at the end or on `close`. */
export interface InputFileStream extends AsyncIterable<Uint8Array> {
  /** Size when opened, in bytes. */
  readonly size: number;
  /** Releases the file without reading it (iterating to the end or breaking out also does). */
  close(): Promise<void>;
}

/**
 * Applies §2.1 rows 1–4 and returns the file as a stream of chunks, so a large G-code program is
 * never held in memory whole. Strict UTF-8 is the caller's check (Utf8Validator on each chunk).
 * Messages name the file as `shown` (the path as the caller gave it, spec §2.1) while `path` is
 * what is opened (the winding door opens the canonical path it checked against its roots).
 */
export async function openInputFile(
  path: string,
  kind: InputKind,
  shown = path,
  options: InputOptions = {},
): Promise<InputFileStream> {
  const { handle, size } = await openChecked(path, kind, shown, options);
  let chunks: AsyncGenerator<Uint8Array> | null = null;
  let closed = false;
  return {
    size,
    [Symbol.asyncIterator]() {
      if (chunks !== null || closed) throw new Error(`input file ${path} can only be read once`);
      chunks = readChunks(handle, shown, kind, options.maxBytes ?? MAX_INPUT_BYTES);
      return chunks;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (chunks !== null) await chunks.return(undefined);
      else await handle.close();
    },
  };
}

/** Applies §2.1 rows 1–4 and returns the whole file. */
export async function readInputFile(
  path: string,
  kind: InputKind,
  shown = path,
  options: InputOptions = {},
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of await openInputFile(path, kind, shown, options)) parts.push(chunk);
  return Buffer.concat(parts);
}

/** Reads and parses a `.wind` file: §2.1 in full, then §2.2–2.7. */
export async function readWindDefinition(
  path: string,
  shown = path,
  options: InputOptions = {},
): Promise<WindDefinition> {
  return parseWindDefinition(await readInputFile(path, 'wind', shown, options), shown);
}
