// What the page asks of the 3D scene, as data: the same commands reach a scene drawn in the preview
// worker (as messages) and one drawn on the page (the fallback where a canvas cannot be handed to a
// worker), so both are driven by one code path.
import type { PathStyle, ToolpathScene, ViewDirection } from './toolpath-scene.ts';

export type SceneCommand =
  | { op: 'scrub'; command: number }
  | { op: 'layer'; layer: number; visible: boolean }
  | { op: 'view'; direction: ViewDirection }
  | { op: 'fit' }
  | { op: 'style'; style: PathStyle }
  | { op: 'zoom'; factor: number }
  /** Pointer deltas in CSS pixels. */
  | { op: 'orbit'; dx: number; dy: number }
  | { op: 'pan'; dx: number; dy: number }
  /** The canvas's CSS size and the screen's pixel ratio (a worker has no window to ask). */
  | { op: 'resize'; width: number; height: number; pixelRatio: number };

export function applySceneCommand(scene: ToolpathScene, command: SceneCommand): void {
  switch (command.op) {
    case 'scrub':
      scene.setScrub(command.command);
      return;
    case 'layer':
      scene.setLayerVisible(command.layer, command.visible);
      return;
    case 'view':
      scene.setView(command.direction);
      return;
    case 'fit':
      scene.fit();
      return;
    case 'style':
      scene.setStyle(command.style);
      return;
    case 'zoom':
      scene.zoom(command.factor);
      return;
    case 'orbit':
      scene.orbit(command.dx, command.dy);
      return;
    case 'pan':
      scene.pan(command.dx, command.dy);
      return;
    case 'resize':
      scene.resize(command.width, command.height, command.pixelRatio);
      return;
  }
}
