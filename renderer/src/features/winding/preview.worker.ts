// The Winding area's Web Worker: everything heavy about a program happens here (see
// preview/session.ts), and, when the page hands over its canvas, the 3D view is drawn here too
// (scene/worker-scene.ts). This file only binds both to the worker's message port.
import type { WorkerAnswer, WorkerRequest } from './preview/protocol.ts';
import { isSceneRequest } from './preview/protocol.ts';
import { PreviewSession } from './preview/session.ts';
import { WorkerScene } from './scene/worker-scene.ts';

interface WorkerScope {
  postMessage(message: WorkerAnswer, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}

const scope = self as unknown as WorkerScope;
const post = (answer: WorkerAnswer, transfer: Transferable[] = []) => scope.postMessage(answer, transfer);
const session = new PreviewSession(post);
const scene = new WorkerScene(
  (stats) => post({ type: 'scene-frame', id: 0, stats }),
  (message) => post({ type: 'scene-error', id: 0, message }),
  (stats) => post({ type: 'unwrapped-frame', id: 0, stats }),
);
// One request at a time, in order: a chunk must not overtake the open that announced it, nor a
// scene command the canvas it is meant for.
let queue = Promise.resolve();
scope.addEventListener('message', (event) => {
  const request = event.data;
  // Heard at once, not in turn: a plan still running for an older edit stops at its next slice.
  if (!isSceneRequest(request)) session.notice(request);
  queue = queue.then(() => {
    if (!isSceneRequest(request)) return session.handle(request);
    try {
      if (request.type === 'scene-host') session.tapGeometry((geometry) => scene.setGeometry(geometry));
      else scene.handle(request);
    } catch (error) {
      post({ type: 'scene-error', id: 0, message: error instanceof Error ? error.message : String(error) });
    }
  });
});
