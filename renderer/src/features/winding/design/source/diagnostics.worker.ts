// Checks definitions off the main thread: a vessel's geodesic layers can take tens of
// milliseconds to check, too long for a keystroke on the page's thread.
import { windDiagnostics } from '#engine/wind/diagnostics.ts';
import type { CheckAnswer, CheckRequest } from './diagnostics-protocol.ts';

interface WorkerScope {
  postMessage(message: CheckAnswer): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<CheckRequest>) => void): void;
}

const scope = self as unknown as WorkerScope;
scope.addEventListener('message', ({ data }) => {
  scope.postMessage({ id: data.id, diagnostics: windDiagnostics(data.text) });
});
