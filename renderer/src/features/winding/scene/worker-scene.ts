// The 3D scene as the preview worker holds it: drawn on the OffscreenCanvas the page handed over,
// from the geometry the worker built, so neither the upload of a big path nor its first frame (slow
// in software GL) runs on the page's thread. The page drives it with scene commands and hears of
// each frame drawn.
import type { SceneRequest, ViewGeometry } from '../preview/protocol.ts';
import { applySceneCommand } from './commands.ts';
import { type SceneStats, ToolpathScene } from './toolpath-scene.ts';
import { UnwrappedCanvas, type UnwrappedStats } from './unwrapped-canvas.ts';

export class WorkerScene {
  #scene: ToolpathScene | null = null;
  #geometry: ViewGeometry | null = null;
  readonly #onFrame: (stats: SceneStats) => void;
  readonly #onError: (message: string) => void;
  readonly #onUnwrapped: (stats: UnwrappedStats) => void;
  #unwrapped: UnwrappedCanvas | null = null;

  constructor(
    onFrame: (stats: SceneStats) => void,
    onError: (message: string) => void,
    onUnwrapped: (stats: UnwrappedStats) => void,
  ) {
    this.#onFrame = onFrame;
    this.#onError = onError;
    this.#onUnwrapped = onUnwrapped;
  }

  /** The newest program's geometry: drawn now if a canvas is attached, else when one is. */
  setGeometry(geometry: ViewGeometry): void {
    this.#geometry = geometry;
    this.#unwrapped?.setGeometry(geometry);
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
          if (request.scrub !== undefined) scene.setScrub(request.scrub);
          scene.drawNow();
        }
        return;
      }
      case 'scene':
        if (this.#scene) applySceneCommand(this.#scene, request.command);
        // One timeline for both views.
        if (request.command.op === 'scrub') this.#unwrapped?.handle(request.command);
        return;
      case 'scene-detach':
        this.#scene?.dispose();
        this.#scene = null;
        return;
      case 'scene-unwrapped-attach': {
        const view = new UnwrappedCanvas(request.canvas, this.#onUnwrapped);
        view.handle({
          op: 'resize',
          width: request.width,
          height: request.height,
          pixelRatio: request.pixelRatio,
        });
        this.#unwrapped = view;
        if (this.#geometry) view.setGeometry(this.#geometry);
        return;
      }
      case 'scene-unwrapped':
        this.#unwrapped?.handle(request.command);
        return;
      case 'scene-unwrapped-detach':
        this.#unwrapped = null;
        return;
    }
  }
}
