/**
 * A fixed number of slots for concurrent tasks (a counting semaphore): at most `size` tasks run at
 * once; the rest wait in arrival order (FIFO), so no request is dropped and none starves behind
 * later ones.
 */
export class Slots {
  readonly size: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.size = size;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.size) {
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
