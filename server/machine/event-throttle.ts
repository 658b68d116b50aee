// Progress comes after every acknowledged line (hundreds a second); a browser needs at most ten
// updates a second. Everything else (state, errors, actions, logs) is rare and passes at once,
// after any held-back progress so the order of events is kept.
import { type Clock, systemClock, type TimerHandle } from '../../engine/machine/clock.ts';
import type { MachineEvent } from '../../engine/machine/types.ts';

export const PROGRESS_INTERVAL_MS = 100;

export interface EventThrottle {
  push(event: MachineEvent): void;
  /** Drops anything held back and stops the timer. */
  stop(): void;
}

export function throttleProgress(
  send: (event: MachineEvent) => void,
  { clock = systemClock, intervalMs = PROGRESS_INTERVAL_MS }: { clock?: Clock; intervalMs?: number } = {},
): EventThrottle {
  let held: MachineEvent | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let timer: TimerHandle | undefined;

  const flush = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    if (!held) return;
    const event = held;
    held = undefined;
    lastSentAt = clock.now();
    send(event);
  };

  return {
    push(event) {
      if (event.type !== 'progress') {
        flush();
        send(event);
        return;
      }
      held = event;
      const wait = lastSentAt + intervalMs - clock.now();
      if (wait <= 0) flush();
      else timer ??= clock.setTimeout(flush, wait);
    },
    stop() {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      held = undefined;
    },
  };
}
