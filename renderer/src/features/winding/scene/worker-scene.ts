// The 3D scene as the preview worker holds it: drawn on the OffscreenCanvas the page handed over,
// from the geometry the worker built, so neither the upload of a big path nor its first frame (slow
// in software GL) runs on the page's thread. The page drives it with scene commands and hears of
// each frame drawn.
import type { SceneRequest, ViewGeometry } from '../preview/protocol.ts';
import { applySceneCommand } from './commands.ts';
import { type SceneStats, ToolpathScene } from './toolpath-scene.ts';

export class WorkerScene {
  #scene: ToolpathScene | null = null;
  #geometry: ViewGeometry | null = null;
  readonly #onFrame: (stats: SceneStats) => void;
  readonly #onError: (message: string) => void;

  constructor(onFrame: (stats: SceneStats) => void, onError: (message: string) => void) {
    this.#onFrame = onFrame;
    this.#onError = onError;
  }

  /** The newest program's geometry: drawn now if a canvas is attached, else when one is. */
  setGeometry(geometry: ViewGeometry): void {
    this.#geometry = geometry;
    if (!this.#scene) return;
    this.#scene.setGeometry(geometry);
    // The worker's frame reaches the page when this task ends; an animation frame would only add a wait.
    this.#scene.drawNow();
  }

  handle(request: Exclude<SceneRequest, { type: 'scene-host' }>): void {
    switch (request.type) {
      case 'scene-attach': {
        // A new canvas for each mount of the 3D view: the old one is gone with its page element.
        this.#scene?.dispose();
        const scene = new ToolpathScene(request.canvas, this.#onFrame, this.#onError);
        scene.resize(request.width, request.height, request.pixelRatio);
        this.#scene = scene;
        if (this.#geometry) {
          scene.setGeometry(this.#geometry);
          scene.drawNow();
        }
        return;
      }
      case 'scene':
        if (this.#scene) applySceneCommand(this.#scene, request.command);
        return;
      case 'scene-detach':
        this.#scene?.dispose();
        this.#scene = null;
        return;
    }
  }
}
