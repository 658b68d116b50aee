// Progress comes after every acknowledged line (hundreds a second); a browser needs at most ten
// updates a second. Progress is a snapshot, so a newer one replaces one still held back. Other
// events (state, errors, actions, logs) are never dropped and never overtake an earlier progress:
// one that arrives behind a held-back progress waits for it (at most one interval), which keeps
// the order of `seq` on the wire without letting a chatty controller push progress past the limit.
import { type Clock, systemClock, type TimerHandle } from '../../../engine/machine/clock.ts';
import type { MachineEvent } from '../../../engine/machine/types.ts';

const PROGRESS_INTERVAL_MS = 100;

export interface EventThrottle {
  push(event: MachineEvent): void;
  /** Drops anything held back and stops the timer. */
  stop(): void;
}

export function throttleProgress(
  send: (event: MachineEvent) => void,
  { clock = systemClock, intervalMs = PROGRESS_INTERVAL_MS }: { clock?: Clock; intervalMs?: number } = {},
): EventThrottle {
  /** Events not sent yet, in `seq` order; at most one of them is a progress event. */
  let queue: MachineEvent[] = [];
  let lastProgressAt = Number.NEGATIVE_INFINITY;
  let timer: TimerHandle | undefined;

  const pump = () => {
    while (queue.length > 0) {
      const head = queue[0] as MachineEvent;
      if (head.type === 'progress') {
        const wait = lastProgressAt + intervalMs - clock.now();
        if (wait > 0) {
          timer ??= clock.setTimeout(() => {
            timer = undefined;
            pump();
          }, wait);
          return;
        }
        lastProgressAt = clock.now();
      }
      queue.shift();
      send(head);
    }
  };

  return {
    push(event) {
      if (event.type === 'progress') {
        // During a job the queue is one held-back progress: replaced where it is, every line, with
        // no new array (removing it and appending the new one would put it in the same place).
        const last = queue.length - 1;
        if (last >= 0 && queue[last]?.type === 'progress') {
          queue[last] = event;
          pump();
          return;
        }
        queue = queue.filter((held) => held.type !== 'progress');
      }
      queue.push(event);
      pump();
    },
    stop() {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      queue = [];
    },
  };
}
