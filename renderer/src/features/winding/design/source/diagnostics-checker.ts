// Runs the engine's wind diagnostics for the Source tab: in a worker where there is one (the page),
// on the calling thread where there is not (jsdom tests) or the worker fails to start.
import { type WindDiagnostic, windDiagnostics } from '#engine/wind/diagnostics.ts';
import type { CheckAnswer, CheckRequest } from './diagnostics-protocol.ts';

/** The worker's side as the checker sees it; a test can give its own. */
export interface CheckPort {
  post(request: CheckRequest): void;
  onAnswer(listener: (answer: CheckAnswer) => void): void;
  onFailure(listener: () => void): void;
  close(): void;
}

export interface DiagnosticsChecker {
  /** The diagnostics of `text`; a check asked for while another runs waits for it, and only the latest waiting one runs (the others get its answer: their text is out of date anyway). */
  check(text: string): Promise<WindDiagnostic[]>;
  dispose(): void;
}

function workerPort(): CheckPort | null {
  if (typeof Worker === 'undefined') return null;
  const worker = new Worker(new URL('./diagnostics.worker.ts', import.meta.url), { type: 'module' });
  return {
    post: (request) => worker.postMessage(request),
    onAnswer: (listener) =>
      worker.addEventListener('message', (event: MessageEvent<CheckAnswer>) => listener(event.data)),
    onFailure: (listener) => worker.addEventListener('error', listener),
    close: () => worker.terminate(),
  };
}

export function diagnosticsChecker(port: CheckPort | null = workerPort()): DiagnosticsChecker {
  let local = port === null;
  let nextId = 0;
  let running: { id: number; text: string; resolve: ((found: WindDiagnostic[]) => void)[] } | null = null;
  let waiting: { text: string; resolve: ((found: WindDiagnostic[]) => void)[] } | null = null;

  const start = () => {
    if (running !== null || waiting === null) return;
    running = { id: ++nextId, ...waiting };
    waiting = null;
    if (local) finish(running.id, windDiagnostics(running.text));
    else port?.post({ id: running.id, text: running.text });
  };
  const finish = (id: number, diagnostics: WindDiagnostic[]) => {
    if (running?.id !== id) return;
    for (const resolve of running.resolve) resolve(diagnostics);
    running = null;
    start();
  };
  port?.onAnswer((answer) => finish(answer.id, answer.diagnostics));
  port?.onFailure(() => {
    // Check here from now on, starting with what the worker was given.
    local = true;
    port.close();
    if (running) finish(running.id, windDiagnostics(running.text));
  });

  return {
    check(text) {
      return new Promise((resolve) => {
        waiting = { text, resolve: [...(waiting?.resolve ?? []), resolve] };
        start();
      });
    },
    dispose() {
      port?.close();
      for (const resolve of [...(running?.resolve ?? []), ...(waiting?.resolve ?? [])]) resolve([]);
      running = null;
      waiting = null;
    },
  };
}
