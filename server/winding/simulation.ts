import { SimulationError } from '../../engine/errors.ts';
import { GcodeSimulator } from '../../engine/gcode/index.ts';
import type { SimulationSummary } from '../../engine/gcode/types.ts';
import { Utf8Validator } from '../../engine/text/utf8.ts';
import { type InputOptions, openInputFile } from './input-file.ts';

export interface SimulateFileOptions extends InputOptions {
  /** The path as the caller gave it, for messages; defaults to `path`. */
  shown?: string;
  /** Called after each chunk with the bytes read so far and the file size. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Simulates a G-code file chunk by chunk (spec/winding.md §5). The reading rules come first: a
 * file that is not valid UTF-8 is a read error even when the simulator already failed on an
 * earlier line, so the whole file is checked before a simulation error is reported.
 */
export async function simulateFile(
  path: string,
  { shown = path, onProgress, ...input }: SimulateFileOptions = {},
) {
  const file = await openInputFile(path, 'gcode', shown, input);
  const utf8 = new Utf8Validator();
  const simulator = new GcodeSimulator();
  let failure: unknown;
  let done = 0;
  try {
    for await (const chunk of file) {
      utf8.push(chunk);
      if (utf8.invalidAt !== -1) break;
      if (failure === undefined) {
        try {
          simulator.push(chunk);
        } catch (error) {
          failure = error;
        }
      }
      done += chunk.byteLength;
      onProgress?.(done, file.size);
    }
  } finally {
    await file.close();
  }
  utf8.end();
  if (utf8.invalidAt !== -1) {
    throw new SimulationError(`Could not read G-code at ${shown}: not valid UTF-8 (byte ${utf8.invalidAt})`, {
      unreadable: true,
    });
  }
  if (failure !== undefined) throw failure;
  return simulator.finish() satisfies SimulationSummary;
}
