import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger };

/** One JSON line per event (DESIGN.md); the destination is injectable so tests can read the lines. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ name: 'towpath', level, base: { pid: process.pid } }, destination ?? pino.destination(1));
}

/**
 * The logger with its warnings let through at most once per `intervalMs` for each message; the
 * next one let through counts those held back (`suppressed`). For warnings any client can trigger
 * on every request, which would otherwise fill the disk (33,655 lines in 110 s).
 */
export function throttleWarnings(logger: Logger, intervalMs: number, clock: () => number = Date.now): Logger {
  const last = new Map<string, { at: number; suppressed: number }>();
  const warn = (object: unknown, message?: string) => {
    const key = typeof object === 'string' ? object : (message ?? '');
    const now = clock();
    const seen = last.get(key);
    if (seen && now - seen.at < intervalMs) {
      seen.suppressed += 1;
      return;
    }
    last.set(key, { at: now, suppressed: 0 });
    const suppressed = seen?.suppressed ?? 0;
    if (typeof object === 'string') logger.warn(suppressed > 0 ? { suppressed } : {}, object);
    else logger.warn(suppressed > 0 ? { ...(object as object), suppressed } : object, message);
  };
  return new Proxy(logger, {
    get: (target, property, receiver) =>
      property === 'warn' ? warn : Reflect.get(target, property, receiver),
  });
}
