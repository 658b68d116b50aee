// The realtime gateway's timers: the engine's injectable `Clock`, on Node with every timer unref'd, since
// an expiry, the sweep or the shutdown grace must never be what keeps the process alive.
import type { Clock, TimerHandle } from '../../../engine/machine/clock.ts';

export type { Clock as Timers, TimerHandle };

export const backgroundTimers: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as NodeJS.Timeout | undefined),
};
