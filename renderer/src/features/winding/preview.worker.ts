// The Winding area's Web Worker: everything heavy about a program happens here (see
// preview/session.ts); this file only binds the session to the worker's message port.
import type { WorkerAnswer, WorkerRequest } from './preview/protocol.ts';
import { PreviewSession } from './preview/session.ts';

interface WorkerScope {
  postMessage(message: WorkerAnswer, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}

const scope = self as unknown as WorkerScope;
const session = new PreviewSession((answer, transfer = []) => scope.postMessage(answer, transfer));
// One request at a time, in order: a chunk must not overtake the open that announced it.
let queue = Promise.resolve();
scope.addEventListener('message', (event) => {
  const request = event.data;
  queue = queue.then(() => session.handle(request));
});
