/**
 * A push-driven async iterator: `push` queues values (none is dropped or merged), `end` finishes
 * after the queued ones, and the consumer's `return()` (a client going away) runs `onClose` once.
 */
export function eventQueue<T>(onClose: () => void): {
  push(value: T): void;
  end(): void;
  iterator: AsyncIterableIterator<T>;
} {
  const queued: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let ended = false;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  const done = (): IteratorResult<T> => ({ value: undefined, done: true });
  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (queued.length > 0) return Promise.resolve({ value: queued.shift() as T, done: false });
      if (ended) {
        close();
        return Promise.resolve(done());
      }
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      ended = true;
      queued.length = 0;
      close();
      const resolve = waiting;
      waiting = null;
      resolve?.(done());
      return Promise.resolve(done());
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return {
    push(value) {
      if (ended) return;
      const resolve = waiting;
      waiting = null;
      if (resolve) resolve({ value, done: false });
      else queued.push(value);
    },
    end() {
      if (ended) return;
      ended = true;
      if (queued.length === 0) {
        close();
        const resolve = waiting;
        waiting = null;
        resolve?.(done());
      }
    },
    iterator,
  };
}
