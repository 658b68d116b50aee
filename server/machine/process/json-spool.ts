// The machine door's JSON bodies, decoded as they arrive. A job's `gcode` can be hundreds of
// megabytes: parsing it as one string (JSON.parse) would hold the machine process's event loop for
// tens of milliseconds, and an e-stop with it. So the one large field is decoded in chunks straight
// into a temporary file; the other fields are small and kept in memory. Bodies are flat objects of
// strings, numbers, booleans and null: that is all the machine API sends.
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { SIMPLE_ESCAPES } from '../../../engine/wind/json-decoder.ts';
import { HttpError } from '../../http/http-error.ts';

/** Small fields longer than this are refused: only the spooled field may be large. */
const MAX_SMALL_FIELD = 64 * 1024;
/** The spooled field is written in pieces of about this many characters. */
const SPOOL_WRITE_CHARS = 64 * 1024;

export interface SpooledBody {
  /** Every field except the spooled one. */
  fields: Record<string, unknown>;
  /** The spooled field's text in a temporary UTF-8 file, when the body had it. */
  spooled?: { path: string; bytes: number };
  /** Removes the temporary file; safe to call more than once. */
  discard(): Promise<void>;
}

const invalid = (why: string) => new HttpError(400, `Invalid JSON body: ${why}`);

type State =
  | 'start'
  | 'key-or-end'
  | 'key'
  | 'colon'
  | 'value'
  | 'string'
  | 'literal'
  | 'comma-or-end'
  | 'end';

/**
 * Reads a JSON object from `chunks`, writing the string value of `spoolField` to a temporary file.
 * Throws HttpError 400 for anything that is not a flat JSON object, 413 past `limitBytes`.
 */
export async function spoolJsonBody(
  chunks: AsyncIterable<Buffer | string>,
  { spoolField, limitBytes }: { spoolField: string; limitBytes: number },
): Promise<SpooledBody> {
  const fields: Record<string, unknown> = {};
  const decoder = new StringDecoder('utf8');
  let state: State = 'start';
  let key = '';
  let text = '';
  let pendingEscape: string | null = null; // pending escape sequence, starting with the backslash
  let inKey = false;
  let out: WriteStream | undefined;
  let path: string | undefined;
  let spooledBytes = 0;
  let spooledText = ''; // of the spooled field, decoded and not yet written
  let received = 0;
  let any = false;

  const discard = async () => {
    if (out && !out.closed) await new Promise<void>((resolve) => out?.end(resolve));
    if (path) await rm(path, { force: true });
  };

  const spooling = () => !inKey && key === spoolField;
  /**
   * Writes what the spooled field has collected. A G-code body is a plain run and a `\n` escape a
   * line: written piece by piece, each line was two stream writes with their buffering. Unless
   * `final`, a high surrogate at the end waits for its pair (a low surrogate written alone would
   * become U+FFFD); at the end of the field, a lone one is written as is, and becomes U+FFFD.
   */
  const flushSpooled = async (final: boolean) => {
    let chunk = spooledText;
    spooledText = '';
    const last = chunk.charCodeAt(chunk.length - 1);
    if (!final && last >= 0xd800 && last <= 0xdbff) {
      spooledText = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    if (!out) {
      path = join(tmpdir(), `towpath-job-${process.pid}-${randomBytes(6).toString('hex')}.gcode`);
      out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    }
    if (chunk === '') return;
    spooledBytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out?.once('drain', () => resolve()));
  };
  const emit = async (piece: string) => {
    if (piece === '') return;
    if (!spooling()) {
      text += piece;
      if (text.length > MAX_SMALL_FIELD)
        throw invalid(`field '${inKey ? text.slice(0, 40) : key}' is too long`);
      return;
    }
    spooledText += piece;
    if (spooledText.length >= SPOOL_WRITE_CHARS) await flushSpooled(false);
  };

  const finishString = async () => {
    if (inKey) {
      key = text;
      text = '';
      if (Object.hasOwn(fields, key) || (key === spoolField && path))
        throw invalid(`duplicate field '${key}'`);
      state = 'colon';
      return;
    }
    if (spooling()) await flushSpooled(true);
    else fields[key] = text;
    text = '';
    state = 'comma-or-end';
  };

  const decodeEscape = (sequence: string): string => {
    const letter = sequence[1] as string;
    if (letter !== 'u') {
      const value = SIMPLE_ESCAPES[letter];
      if (value === undefined) throw invalid(`bad escape '${sequence}'`);
      return value;
    }
    if (!/^\\u[0-9a-fA-F]{4}$/.test(sequence)) throw invalid(`bad escape '${sequence}'`);
    return String.fromCharCode(Number.parseInt(sequence.slice(2), 16));
  };

  const consume = async (input: string) => {
    let i = 0;
    while (i < input.length) {
      if (state === 'string') {
        if (pendingEscape !== null) {
          pendingEscape += input[i];
          i++;
          if (pendingEscape.length === 2 && pendingEscape[1] !== 'u') {
            await emit(decodeEscape(pendingEscape));
            pendingEscape = null;
          } else if (pendingEscape.length === 6) {
            await emit(decodeEscape(pendingEscape));
            pendingEscape = null;
          }
          continue;
        }
        // Runs of plain characters are copied in one piece.
        let stop = i;
        while (stop < input.length) {
          const c = input.charCodeAt(stop);
          if (c === 0x22 || c === 0x5c) break;
          if (c < 0x20) throw invalid('control character in a string');
          stop++;
        }
        await emit(input.slice(i, stop));
        i = stop;
        if (i >= input.length) break;
        if (input[i] === '\\') pendingEscape = '\\';
        else await finishString();
        i++;
        continue;
      }
      const c = input[i] as string;
      i++;
      if (state === 'literal') {
        if (/[-+0-9.eEa-z]/.test(c)) {
          text += c;
          if (text.length > 64) throw invalid('literal too long');
          continue;
        }
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw invalid(`unexpected '${text}'`);
        }
        if (key === spoolField) throw invalid(`'${spoolField}' must be a string`);
        fields[key] = value;
        text = '';
        state = 'comma-or-end';
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
      switch (state) {
        case 'start':
          if (c !== '{') throw invalid('expected an object');
          state = 'key-or-end';
          break;
        case 'key-or-end':
        case 'key':
          if (c === '}' && state === 'key-or-end') state = 'end';
          else if (c === '"') {
            state = 'string';
            inKey = true;
          } else throw invalid(`unexpected '${c}'`);
          break;
        case 'colon':
          if (c !== ':') throw invalid(`unexpected '${c}'`);
          state = 'value';
          break;
        case 'value':
          if (c === '"') {
            state = 'string';
            inKey = false;
          } else if (/[-0-9tfn]/.test(c)) {
            state = 'literal';
            text = c;
          } else
            throw invalid(c === '{' || c === '[' ? `field '${key}' must not be nested` : `unexpected '${c}'`);
          break;
        case 'comma-or-end':
          if (c === ',') state = 'key';
          else if (c === '}') state = 'end';
          else throw invalid(`unexpected '${c}'`);
          break;
        case 'end':
          throw invalid('unexpected data after the object');
      }
    }
  };

  try {
    for await (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      received += bytes;
      if (received > limitBytes) throw new HttpError(413, `Request body is larger than ${limitBytes} bytes`);
      if (bytes > 0) any = true;
      await consume(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    }
    await consume(decoder.end());
    // A number at the very end of the input has no delimiter after it.
    if ((state as State) === 'literal') await consume(' ');
    if (!any) return { fields: {}, discard };
    if ((state as State) !== 'end') throw invalid('unexpected end of the body');
    if (out)
      await new Promise<void>((resolve, reject) =>
        out?.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
  } catch (error) {
    await discard();
    throw error;
  }
  return { fields, ...(path ? { spooled: { path, bytes: spooledBytes } } : {}), discard };
}
