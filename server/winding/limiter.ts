/**
 * At most `slots` tasks run at once; the rest wait in arrival order (FIFO), so no request is
 * dropped and none starves behind later ones.
 */
export class Limiter {
  readonly slots: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(slots: number) {
    this.slots = slots;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.slots) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // Hand the slot straight to the next in line, so a newcomer cannot overtake it.
      if (next) next();
      else this.#running--;
    }
  }
}
