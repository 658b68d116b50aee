import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger };

/** One JSON line per event (DESIGN.md); the destination is injectable so tests can read the lines. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ name: 'towpath', level, base: { pid: process.pid } }, destination ?? pino.destination(1));
}
