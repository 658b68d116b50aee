// The 3D view's camera moves — orbit about a target, pan, zoom — as plain maths on the camera,
// driven by pointer deltas in CSS pixels. Kept free of DOM events (unlike three's OrbitControls)
// because the scene may live in a worker that only hears about input through messages.
import { type PerspectiveCamera, Spherical, Vector3 } from 'three';

/** Keep the camera off the poles, where "up" would flip. */
const POLE_MARGIN = 1e-3;

export class CameraRig {
  readonly target = new Vector3();
  readonly #camera: PerspectiveCamera;

  constructor(camera: PerspectiveCamera) {
    this.#camera = camera;
  }

  /** Turns the camera about the target; a drag across the whole view height turns it once around. */
  orbit(dx: number, dy: number, viewHeight: number): void {
    const offset = this.#camera.position.clone().sub(this.target);
    const spherical = new Spherical().setFromVector3(offset);
    const perPixel = (2 * Math.PI) / Math.max(viewHeight, 1);
    spherical.theta -= dx * perPixel;
    spherical.phi = Math.min(Math.PI - POLE_MARGIN, Math.max(POLE_MARGIN, spherical.phi - dy * perPixel));
    this.#camera.position.copy(this.target).add(new Vector3().setFromSpherical(spherical));
    this.update();
  }

  /** Moves camera and target together so the point under the pointer follows it. */
  pan(dx: number, dy: number, viewHeight: number): void {
    const distance = this.#camera.position.distanceTo(this.target);
    const visibleHeight = 2 * distance * Math.tan((this.#camera.fov * Math.PI) / 360);
    const perPixel = visibleHeight / Math.max(viewHeight, 1);
    this.#camera.updateMatrix();
    const right = new Vector3().setFromMatrixColumn(this.#camera.matrix, 0);
    const up = new Vector3().setFromMatrixColumn(this.#camera.matrix, 1);
    const move = right.multiplyScalar(-dx * perPixel).add(up.multiplyScalar(dy * perPixel));
    this.#camera.position.add(move);
    this.target.add(move);
    this.update();
  }

  /** Scales the camera's distance to the target (< 1 comes closer). */
  zoom(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    const offset = this.#camera.position.clone().sub(this.target).multiplyScalar(factor);
    if (offset.lengthSq() < 1e-12) return;
    this.#camera.position.copy(this.target).add(offset);
    this.update();
  }

  /** Looks from `target + offset` at `target`. */
  place(target: Vector3, offset: Vector3): void {
    this.target.copy(target);
    this.#camera.up.set(0, 1, 0);
    this.#camera.position.copy(target).add(offset);
    this.update();
  }

  update(): void {
    this.#camera.lookAt(this.target);
    this.#camera.updateMatrixWorld();
  }
}
