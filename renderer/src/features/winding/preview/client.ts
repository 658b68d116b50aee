// The page's side of the preview worker: requests with ids, answers as promises, progress as a
// callback, and the 3D scene the worker draws on the page's canvas. Where module workers are
// missing (jsdom in unit tests) the same session runs on the main thread behind the same interface,
// and the page draws the scene itself.
import type { SceneCommand } from '../scene/commands.ts';
import type { SceneStats } from '../scene/toolpath-scene.ts';
import type { UnwrappedCommand, UnwrappedStats } from '../scene/unwrapped-canvas.ts';
import {
  type CommandLine,
  isSceneRequest,
  type JobAnswer,
  type LoadResult,
  type PlanOptionsState,
  type WorkerAnswer,
  type WorkerRequest,
} from './protocol.ts';

export interface ProgressReport {
  /** Drawing: the worker builds and draws the views of the plan (done and total are 0). */
  phase: 'reading' | 'planning' | 'drawing';
  done: number;
  total: number;
}

interface Port {
  post(request: WorkerRequest, transfer?: Transferable[]): void;
  onAnswer(listener: (answer: WorkerAnswer) => void): void;
  close(): void;
}

function workerPort(): Port {
  const worker = new Worker(new URL('../preview.worker.ts', import.meta.url), {
    type: 'module',
    name: 'preview',
  });
  return {
    post: (request, transfer = []) => worker.postMessage(request, transfer),
    onAnswer: (listener) =>
      worker.addEventListener('message', (event: MessageEvent<WorkerAnswer>) => listener(event.data)),
    close: () => worker.terminate(),
  };
}

async function mainThreadPort(): Promise<Port> {
  const { PreviewSession } = await import('./session.ts');
  const listeners: ((answer: WorkerAnswer) => void)[] = [];
  const session = new PreviewSession((answer) => {
    queueMicrotask(() => {
      for (const listener of listeners) listener(answer);
    });
  });
  let queue = Promise.resolve();
  return {
    post: (request) => {
      // The page draws the scene itself on this path: scene requests have no one to go to.
      if (isSceneRequest(request)) return;
      session.notice(request);
      queue = queue.then(() => session.handle(request));
    },
    onAnswer: (listener) => listeners.push(listener),
    close: () => {},
  };
}

type Pending = {
  resolve: (answer: WorkerAnswer) => void;
  reject: (error: Error) => void;
  onProgress?: (report: ProgressReport) => void;
  /** planText hears of being overtaken; an open or re-plan overtaken hears nothing more, as before. */
  answersCancelled: boolean;
};

/** The page can hand a canvas to a worker (OffscreenCanvas); where not, it draws the scene itself. */
function canvasTransferable(): boolean {
  return (
    typeof HTMLCanvasElement !== 'undefined' && 'transferControlToOffscreen' in HTMLCanvasElement.prototype
  );
}

export interface SceneListener {
  frame(stats: SceneStats): void;
  error(message: string): void;
}

export class PreviewClient {
  readonly #port: Promise<Port>;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #sceneListener: SceneListener | null = null;
  #unwrappedListener: ((stats: UnwrappedStats) => void) | null = null;
  /** The edit being planned (planText): a newer one answers it as cancelled at once. */
  #textPlan: number | null = null;
  /** The worker draws the 3D view on the page's transferred canvas (else the page draws it). */
  readonly drawsScene: boolean;

  constructor(options: { mainThread?: boolean } = {}) {
    const useWorker = !options.mainThread && typeof Worker !== 'undefined';
    this.drawsScene = useWorker && canvasTransferable();
    this.#port = (useWorker ? Promise.resolve(workerPort()) : mainThreadPort()).then((port) => {
      port.onAnswer((answer) => this.#receive(answer));
      if (this.drawsScene) port.post({ type: 'scene-host', id: 0 });
      return port;
    });
  }

  /** Hands the 3D view's canvas to the worker, which draws every frame from now on. */
  async attachScene(
    canvas: OffscreenCanvas,
    size: { width: number; height: number; pixelRatio: number },
    listener: SceneListener,
    scrub?: number,
  ): Promise<void> {
    this.#sceneListener = listener;
    (await this.#port).post({ type: 'scene-attach', id: 0, canvas, ...size, scrub }, [canvas]);
  }

  /** Hands the unwrapped view's canvas to the worker, which draws it from each program's geometry. */
  async attachUnwrapped(
    canvas: OffscreenCanvas,
    size: { width: number; height: number; pixelRatio: number },
    listener: (stats: UnwrappedStats) => void,
  ): Promise<void> {
    this.#unwrappedListener = listener;
    (await this.#port).post({ type: 'scene-unwrapped-attach', id: 0, canvas, ...size }, [canvas]);
  }

  async unwrappedCommand(command: UnwrappedCommand): Promise<void> {
    (await this.#port).post({ type: 'scene-unwrapped', id: 0, command });
  }

  async detachUnwrapped(): Promise<void> {
    this.#unwrappedListener = null;
    (await this.#port).post({ type: 'scene-unwrapped-detach', id: 0 });
  }

  async sceneCommand(command: SceneCommand): Promise<void> {
    (await this.#port).post({ type: 'scene', id: 0, command });
  }

  async detachScene(): Promise<void> {
    this.#sceneListener = null;
    (await this.#port).post({ type: 'scene-detach', id: 0 });
  }

  /** Opens a File (browser picker, drop, recent list): the worker reads it in chunks. */
  openBlob(
    name: string,
    blob: Blob,
    options: PlanOptionsState,
    onProgress?: (report: ProgressReport) => void,
  ): Promise<LoadResult> {
    return this.#request((id) => ({ type: 'open-blob', id, name, blob, options }), onProgress).then(loaded);
  }

  /** Opens a file whose chunks the page receives (the desktop app's native dialog) and hands on. */
  async openChunks(
    name: string,
    size: number,
    chunks: AsyncIterable<Uint8Array>,
    options: PlanOptionsState,
    onProgress?: (report: ProgressReport) => void,
  ): Promise<LoadResult> {
    const port = await this.#port;
    const id = this.#nextId++;
    const answer = this.#wait(id, onProgress);
    port.post({ type: 'open-begin', id, name, size, options });
    for await (const bytes of chunks)
      port.post({ type: 'open-chunk', id, bytes }, [bytes.buffer as ArrayBuffer]);
    port.post({ type: 'open-end', id });
    return loaded(await answer);
  }

  /**
   * Plans a definition's text (the design studio's edits) in the worker, which keeps the result
   * as the open program like an opened file. A newer call supersedes one still in flight: that one
   * answers `{ cancelled: true }` at once and the worker gives its plan up at its next slice.
   */
  async planText(
    name: string,
    text: string,
    options: PlanOptionsState,
    onProgress?: (report: ProgressReport) => void,
  ): Promise<LoadResult | { cancelled: true }> {
    const port = await this.#port;
    const older = this.#textPlan === null ? undefined : this.#pending.get(this.#textPlan);
    if (older && this.#textPlan !== null) {
      this.#pending.delete(this.#textPlan);
      older.resolve({ type: 'cancelled', id: this.#textPlan });
    }
    const id = this.#nextId++;
    this.#textPlan = id;
    const answer = this.#wait(id, onProgress, true);
    port.post({ type: 'plan-text', id, name, text, options });
    const settled = await answer;
    if (this.#textPlan === id) this.#textPlan = null;
    if (settled.type === 'cancelled') return { cancelled: true };
    return loaded(settled);
  }

  replan(options: PlanOptionsState, onProgress?: (report: ProgressReport) => void): Promise<LoadResult> {
    return this.#request((id) => ({ type: 'replan', id, options }), onProgress).then(loaded);
  }

  async line(command: number): Promise<CommandLine | null> {
    const answer = await this.#request((id) => ({ type: 'line', id, command }));
    return answer.type === 'line' ? answer.line : null;
  }

  async programBlob(): Promise<Blob | null> {
    const answer = await this.#request((id) => ({ type: 'program-blob', id }));
    return answer.type === 'program-blob' ? answer.blob : null;
  }

  async startJob(url: string): Promise<JobAnswer> {
    const answer = await this.#request((id) => ({ type: 'start-job', id, url }));
    if (answer.type !== 'job') throw new Error('unexpected answer');
    return answer.answer;
  }

  async dryRun(): Promise<{ total: number; error?: string }> {
    const answer = await this.#request((id) => ({ type: 'dry-run', id }));
    if (answer.type !== 'dry-run') throw new Error('unexpected answer');
    return { total: answer.total, error: answer.error };
  }

  async close(): Promise<void> {
    (await this.#port).close();
    for (const pending of this.#pending.values()) pending.reject(new Error('preview closed'));
    this.#pending.clear();
  }

  async #request(
    make: (id: number) => WorkerRequest,
    onProgress?: (report: ProgressReport) => void,
  ): Promise<WorkerAnswer> {
    const port = await this.#port;
    const id = this.#nextId++;
    const answer = this.#wait(id, onProgress);
    port.post(make(id));
    return answer;
  }

  #wait(
    id: number,
    onProgress?: (report: ProgressReport) => void,
    answersCancelled = false,
  ): Promise<WorkerAnswer> {
    return new Promise((resolve, reject) =>
      this.#pending.set(id, { resolve, reject, onProgress, answersCancelled }),
    );
  }

  #receive(answer: WorkerAnswer): void {
    if (answer.type === 'scene-frame') {
      this.#sceneListener?.frame(answer.stats);
      return;
    }
    if (answer.type === 'unwrapped-frame') {
      this.#unwrappedListener?.(answer.stats);
      return;
    }
    if (answer.type === 'scene-error') {
      this.#sceneListener?.error(answer.message);
      return;
    }
    const pending = this.#pending.get(answer.id);
    if (!pending) return;
    if (answer.type === 'progress') {
      pending.onProgress?.({ phase: answer.phase, done: answer.done, total: answer.total });
      return;
    }
    this.#pending.delete(answer.id);
    if (answer.type === 'cancelled' && !pending.answersCancelled) return;
    if (answer.type === 'failed') pending.reject(new Error(answer.message));
    else pending.resolve(answer);
  }
}

function loaded(answer: WorkerAnswer): LoadResult {
  if (answer.type !== 'loaded') throw new Error('unexpected answer');
  return answer.result;
}
