// Where the 3D view is drawn, behind one interface: in the preview worker on the canvas handed
// over with transferControlToOffscreen (the page's thread never uploads the path or draws a frame),
// or on the page itself where a canvas cannot be handed over. The canvas is made here, one per
// mount, because a canvas can be handed over only once.
import type { PreviewClient, SceneListener } from '../preview/client.ts';
import type { ViewGeometry } from '../preview/protocol.ts';
import { applySceneCommand, type SceneCommand } from '../scene/commands.ts';
import { attachCameraInput } from './camera-input.ts';

const CANVAS_LABEL = 'Toolpath on the mandrel: drag to orbit, right-drag or arrow keys to pan, wheel to zoom';

export interface SceneHost {
  send(command: SceneCommand): void;
  /** The geometry to draw; only the page-drawn scene needs it (the worker holds its own). */
  showGeometry(geometry: ViewGeometry): void;
  dispose(): void;
}

/**
 * A focusable canvas for a view, added to `container`, and its size for the drawing side (CSS
 * pixels and the screen's pixel ratio, which a worker has no window to ask).
 */
export function viewCanvas(
  container: HTMLElement,
  label: string,
): { canvas: HTMLCanvasElement; size: () => { width: number; height: number; pixelRatio: number } } {
  const canvas = document.createElement('canvas');
  canvas.tabIndex = 0;
  canvas.setAttribute('aria-label', label);
  container.append(canvas);
  const size = () => ({
    width: canvas.clientWidth,
    height: canvas.clientHeight,
    pixelRatio: window.devicePixelRatio || 1,
  });
  return { canvas, size };
}

export function mountScene(
  container: HTMLElement,
  client: PreviewClient,
  listener: SceneListener,
  /** The timeline's position when the view mounts; absent, the whole path is drawn done. */
  scrub?: number,
): SceneHost {
  const { canvas, size } = viewCanvas(container, CANVAS_LABEL);

  let inner: SceneHost;
  if (client.drawsScene) {
    void client.attachScene(canvas.transferControlToOffscreen(), size(), listener, scrub);
    inner = {
      send: (command) => void client.sceneCommand(command),
      showGeometry: () => {},
      dispose: () => void client.detachScene(),
    };
  } else {
    inner = pageScene(canvas, listener);
    inner.send({ op: 'resize', ...size() });
  }

  // The observer reports after layout; sizes that did not change draw nothing new.
  const observer = new ResizeObserver(() => inner.send({ op: 'resize', ...size() }));
  observer.observe(canvas);
  const stopInput = attachCameraInput(canvas, inner.send);
  return {
    send: inner.send,
    showGeometry: inner.showGeometry,
    dispose: () => {
      observer.disconnect();
      stopInput();
      inner.dispose();
      canvas.remove();
    },
  };
}

/** The fallback: three.js on the page's thread (loaded only here, so it stays out of the page's bundle otherwise). */
function pageScene(canvas: HTMLCanvasElement, listener: SceneListener): SceneHost {
  const queued: SceneCommand[] = [];
  let geometry: ViewGeometry | null = null;
  let scene: import('../scene/toolpath-scene.ts').ToolpathScene | null = null;
  let disposed = false;
  import('../scene/toolpath-scene.ts').then(
    ({ ToolpathScene }) => {
      if (disposed) return;
      try {
        scene = new ToolpathScene(canvas, listener.frame, listener.error);
      } catch (error) {
        listener.error(error instanceof Error ? error.message : String(error));
        return;
      }
      if (geometry) scene.setGeometry(geometry);
      for (const command of queued.splice(0)) applySceneCommand(scene, command);
    },
    (error: Error) => listener.error(error.message),
  );
  return {
    send: (command) => {
      if (scene) applySceneCommand(scene, command);
      else queued.push(command);
    },
    showGeometry: (next) => {
      geometry = next;
      scene?.setGeometry(next);
    },
    dispose: () => {
      disposed = true;
      scene?.dispose();
    },
  };
}
