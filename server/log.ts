import { closeSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogFormat, LogLevel } from './config/index.ts';

export type { Logger };

/** One JSON line per event (DESIGN.md); the destination is injectable so tests can read the lines. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ name: 'towpath', level, base: { pid: process.pid } }, destination ?? pino.destination(1));
}

/** The core's log file in the data dir, beside the machine process's own. */
export const CORE_LOG_FILE = 'towpath.log';
/** A log larger than this at start is kept as `towpath.log.1`, so the folder does not grow for ever. */
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

export interface CoreLogSettings {
  logLevel: LogLevel;
  logFormat: LogFormat;
  dataDir: string;
}

/** Where the terminal's lines go; the process's streams unless a test reads them. */
export interface Terminal {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * The core's logger. Every event goes as a JSON line to `<data dir>/towpath.log`. The terminal gets
 * either that JSON on stdout (`LOG_FORMAT=json`, for services that collect it) or, for a person, one
 * short line per warning or error on stderr: two JSON lines per HTTP request buried the lines that
 * matter (the running line and the setup code, which `towpath serve` prints itself).
 */
export function createCoreLogger(settings: CoreLogSettings, terminal: Terminal = process): Logger {
  const file = logFile(join(settings.dataDir, CORE_LOG_FILE));
  const shown: DestinationStream =
    settings.logFormat === 'json'
      ? { write: (line) => terminal.stdout.write(line) }
      : {
          write: (line) => {
            const text = humanLine(line);
            if (text !== undefined) terminal.stderr.write(text);
          },
        };
  return pino(
    { name: 'towpath', level: settings.logLevel, base: { pid: process.pid } },
    pino.multistream([
      { level: settings.logLevel, stream: file },
      { level: settings.logFormat === 'json' ? settings.logLevel : 'warn', stream: shown },
    ]),
  );
}

const LEVEL_NAMES: Record<number, string> = { 40: 'warning', 50: 'error', 60: 'fatal' };

/** A warning or error as a person reads it: time, level, message and the error's own message. */
export function humanLine(json: string): string | undefined {
  let entry: { level?: number; time?: number; msg?: string; err?: { message?: string } };
  try {
    entry = JSON.parse(json);
  } catch {
    return undefined;
  }
  const level = LEVEL_NAMES[entry.level ?? 0];
  if (level === undefined) return undefined;
  const time = new Date(entry.time ?? Date.now()).toTimeString().slice(0, 8);
  const cause = entry.err?.message && entry.err.message !== entry.msg ? `: ${entry.err.message}` : '';
  return `${time} ${level}: ${entry.msg ?? ''}${cause}\n`;
}

/**
 * Appends to the log file, opened at the first line: start-up logs nothing before it has checked
 * the data dir, so an unusable one is reported as such rather than as a log file that will not
 * open. A file that cannot be written is given up on; the terminal still shows what matters.
 */
function logFile(path: string): DestinationStream {
  let fd: number | null | undefined;
  return {
    write(line) {
      if (fd === undefined) fd = openLog(path);
      if (fd === null) return;
      try {
        writeSync(fd, line);
      } catch {
        closeSync(fd);
        fd = null;
      }
    },
  };
}

function openLog(path: string): number | null {
  try {
    if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > LOG_ROTATE_BYTES) {
      renameSync(path, `${path}.1`);
    }
    return openSync(path, 'a', 0o600);
  } catch {
    return null;
  }
}
