// Time for the host, injected so tests control it without sleeping.

export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** A clock that moves only when told to; due timers run in time order during `advance`. */
export class ManualClock implements Clock {
  #time = 0;
  #nextId = 1;
  #timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.#time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  advance(ms: number): void {
    const until = this.#time + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Number.POSITIVE_INFINITY;
      for (const [id, timer] of this.#timers) {
        if (timer.at <= until && timer.at < dueAt) {
          dueId = id;
          dueAt = timer.at;
        }
      }
      if (dueId === undefined) break;
      const timer = this.#timers.get(dueId);
      this.#timers.delete(dueId);
      this.#time = dueAt;
      timer?.callback();
    }
    this.#time = until;
  }

  get pending(): number {
    return this.#timers.size;
  }
}
