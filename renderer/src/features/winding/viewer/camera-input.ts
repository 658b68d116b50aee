// Pointer, wheel and keyboard on the 3D view's canvas, turned into scene commands: drag to orbit,
// right-drag or Shift-drag to pan, wheel to zoom, arrow keys to pan. Moves are summed and sent once
// per animation frame, so a fast drag does not queue hundreds of messages behind a slow frame.
import type { SceneCommand } from '../scene/commands.ts';

/** CSS pixels an arrow key pans by. */
const KEY_PAN = 24;
/** Wheel zoom: each 100 units of deltaY scale the distance by about 10 %. */
const WHEEL_RATE = 0.001;

export function attachCameraInput(canvas: HTMLElement, send: (command: SceneCommand) => void): () => void {
  let drag: { pointer: number; mode: 'orbit' | 'pan'; x: number; y: number } | null = null;
  let pending: { mode: 'orbit' | 'pan'; dx: number; dy: number } | null = null;
  let zoom = 1;
  let frame = 0;

  const flush = () => {
    frame = 0;
    if (pending && (pending.dx !== 0 || pending.dy !== 0))
      send({ op: pending.mode, dx: pending.dx, dy: pending.dy });
    pending = null;
    if (zoom !== 1) send({ op: 'zoom', factor: zoom });
    zoom = 1;
  };
  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(flush);
  };

  const onPointerDown = (event: PointerEvent) => {
    if (drag) return;
    const mode = event.button === 2 || event.shiftKey || event.ctrlKey || event.metaKey ? 'pan' : 'orbit';
    drag = { pointer: event.pointerId, mode, x: event.clientX, y: event.clientY };
    canvas.setPointerCapture?.(event.pointerId);
    canvas.focus({ preventScroll: true });
  };
  const onPointerMove = (event: PointerEvent) => {
    if (!drag || event.pointerId !== drag.pointer) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    drag.x = event.clientX;
    drag.y = event.clientY;
    // A change of mode mid-drag sends what was gathered so far first.
    if (pending && pending.mode !== drag.mode) flush();
    pending ??= { mode: drag.mode, dx: 0, dy: 0 };
    pending.dx += dx;
    pending.dy += dy;
    schedule();
  };
  const onPointerUp = (event: PointerEvent) => {
    if (drag?.pointer !== event.pointerId) return;
    canvas.releasePointerCapture?.(event.pointerId);
    drag = null;
  };
  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    // deltaMode 1 counts lines, 2 pages: bring both to about pixels.
    const scale = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1;
    zoom *= Math.exp(event.deltaY * scale * WHEEL_RATE);
    schedule();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const move: Record<string, [number, number]> = {
      ArrowLeft: [KEY_PAN, 0],
      ArrowRight: [-KEY_PAN, 0],
      ArrowUp: [0, KEY_PAN],
      ArrowDown: [0, -KEY_PAN],
    };
    const delta = move[event.key];
    if (!delta) return;
    event.preventDefault();
    send({ op: 'pan', dx: delta[0], dy: delta[1] });
  };
  const onContextMenu = (event: Event) => event.preventDefault();

  canvas.addEventListener('pointerdown', onPointerDown);
  canvas.addEventListener('pointermove', onPointerMove);
  canvas.addEventListener('pointerup', onPointerUp);
  canvas.addEventListener('pointercancel', onPointerUp);
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('keydown', onKeyDown);
  canvas.addEventListener('contextmenu', onContextMenu);
  return () => {
    cancelAnimationFrame(frame);
    canvas.removeEventListener('pointerdown', onPointerDown);
    canvas.removeEventListener('pointermove', onPointerMove);
    canvas.removeEventListener('pointerup', onPointerUp);
    canvas.removeEventListener('pointercancel', onPointerUp);
    canvas.removeEventListener('wheel', onWheel);
    canvas.removeEventListener('keydown', onKeyDown);
    canvas.removeEventListener('contextmenu', onContextMenu);
  };
}
