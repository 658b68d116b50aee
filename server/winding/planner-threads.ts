// The winding door's planner threads (planner-thread.ts): validate and plan run there, off the main
// thread and below its priority. A thread is started on first need and kept for the next run; the
// door's limiter (at most 4 runs) bounds how many there are. Errors come back as the status and
// message the door would have answered with.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../http/http-error.ts';
import type { PathRequest, PlanRequest } from './schemas.ts';

/** How long a closing door waits for stopped runs to clean up after themselves. */
const CLOSE_GRACE_MS = 2000;

export interface PlannerThreadData {
  allowedRoots: string[];
}

export type PlannerRequest =
  | { type: 'run'; op: 'plan'; request: PlanRequest }
  | { type: 'run'; op: 'validate'; request: PathRequest }
  | { type: 'abort'; reason: string }
  | { type: 'folder-noted'; error?: string };

export type PlannerReply =
  | { type: 'note-folder'; folder: string }
  | { type: 'done'; result: unknown }
  | { type: 'failed'; status: number | undefined; message: string };

type Run = Extract<PlannerRequest, { type: 'run' }>;

/** The thread's entry: the .ts source in development, `planner-thread.js` beside the Electron bundle. */
export function plannerThreadEntry(): string {
  const source = fileURLToPath(new URL('./planner-thread.ts', import.meta.url));
  if (existsSync(source)) return source;
  return join(dirname(fileURLToPath(import.meta.url)), 'planner-thread.js');
}

export class PlannerThreads {
  readonly #data: PlannerThreadData;
  readonly #entry: string;
  readonly #idle: Worker[] = [];
  readonly #all = new Set<Worker>();
  readonly #running = new Set<Promise<unknown>>();
  #closed = false;

  constructor(allowedRoots: string[], entry = plannerThreadEntry()) {
    this.#data = { allowedRoots };
    this.#entry = entry;
  }

  /** Runs one operation on a thread; `stopping` aborts it at its next slice. */
  run<T>(
    run: Omit<Run, 'type'>,
    {
      stopping,
      noteOutputFolder,
    }: { stopping?: AbortSignal; noteOutputFolder?(folder: string): Promise<void> },
  ): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the server is stopping'));
    stopping?.throwIfAborted();
    const worker = this.#idle.pop() ?? this.#start();
    const running = new Promise<T>((resolve, reject) => {
      const post = (message: PlannerRequest) => worker.postMessage(message);
      const onAbort = () => post({ type: 'abort', reason: reasonOf(stopping?.reason) });
      const settle = (reusable: boolean) => {
        stopping?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onFailure);
        worker.off('exit', onExit);
        if (reusable && !this.#closed) this.#idle.push(worker);
        else void worker.terminate();
      };
      const onMessage = (message: PlannerReply) => {
        if (message.type === 'note-folder') {
          (noteOutputFolder?.(message.folder) ?? Promise.resolve()).then(
            () => post({ type: 'folder-noted' }),
            (error: unknown) => post({ type: 'folder-noted', error: reasonOf(error) }),
          );
        } else if (message.type === 'done') {
          settle(true);
          resolve(message.result as T);
        } else {
          settle(true);
          reject(
            message.status === undefined
              ? new Error(message.message)
              : new HttpError(message.status, message.message),
          );
        }
      };
      // The thread itself failed (out of memory, a crash in its code): it is not used again.
      const onFailure = (error: Error) => {
        settle(false);
        reject(error);
      };
      const onExit = (code: number) => onFailure(new Error(`the planner thread ended (exit code ${code})`));
      worker.on('message', onMessage);
      worker.once('error', onFailure);
      worker.once('exit', onExit);
      stopping?.addEventListener('abort', onAbort, { once: true });
      post({ type: 'run', ...run } as Run);
    });
    this.#running.add(running);
    const forget = () => this.#running.delete(running);
    running.then(forget, forget);
    return running;
  }

  /**
   * Ends every thread. Runs still under way were told to stop (the door's `stopping`); they get a
   * moment to remove their temporary files before their threads end regardless.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.length = 0;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#running]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
  }

  #start(): Worker {
    const worker = new Worker(this.#entry, { workerData: this.#data });
    this.#all.add(worker);
    // A failure while a run is under way is that run's (see run); one while idle only ends it.
    worker.on('error', () => {});
    worker.once('exit', () => {
      this.#all.delete(worker);
      const idle = this.#idle.indexOf(worker);
      if (idle !== -1) this.#idle.splice(idle, 1);
    });
    // An idle thread does not keep the process alive; a run in progress has its request doing that.
    worker.unref();
    return worker;
  }
}

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
