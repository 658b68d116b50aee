// The camera moves the 3D view's input turns into: orbit keeps the distance, pan moves camera and
// target together, zoom scales the distance, and the camera always looks at the target.
import { PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { CameraRig } from './camera-rig.ts';

function rig() {
  const camera = new PerspectiveCamera(40, 1.5, 0.1, 1000);
  const r = new CameraRig(camera);
  r.place(new Vector3(10, 0, 0), new Vector3(0, 0, 100));
  return { camera, r };
}

function looksAtTarget(camera: PerspectiveCamera, target: Vector3): number {
  const forward = camera.getWorldDirection(new Vector3());
  return forward.dot(target.clone().sub(camera.position).normalize());
}

describe('camera rig', () => {
  it('orbits about the target at the same distance, a full view height once around', () => {
    const { camera, r } = rig();
    r.orbit(100, 0, 400);
    expect(camera.position.distanceTo(r.target)).toBeCloseTo(100, 6);
    // A quarter of the height: a quarter turn about the vertical axis.
    expect(camera.position.z).toBeCloseTo(0, 6);
    expect(Math.abs(camera.position.x - 10)).toBeCloseTo(100, 6);
    expect(looksAtTarget(camera, r.target)).toBeCloseTo(1, 6);
  });

  it('stops short of the poles when dragged far up or down', () => {
    const { camera, r } = rig();
    r.orbit(0, 10_000, 400);
    expect(camera.position.y).toBeLessThan(100);
    expect(camera.position.distanceTo(r.target)).toBeCloseTo(100, 6);
    expect(Number.isFinite(camera.position.x)).toBe(true);
  });

  it('pans camera and target together, the target following the pointer', () => {
    const { camera, r } = rig();
    const offset = camera.position.clone().sub(r.target);
    r.pan(50, 0, 400);
    // Looking down −z with x to the right: dragging right moves the view's centre left.
    expect(r.target.x).toBeLessThan(10);
    expect(r.target.y).toBeCloseTo(0, 6);
    expect(camera.position.clone().sub(r.target).distanceTo(offset)).toBeCloseTo(0, 6);
    r.pan(0, 50, 400);
    expect(r.target.y).toBeGreaterThan(0);
  });

  it('zooms by scaling the distance, and ignores factors that would break the view', () => {
    const { camera, r } = rig();
    r.zoom(0.5);
    expect(camera.position.distanceTo(r.target)).toBeCloseTo(50, 6);
    for (const factor of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) r.zoom(factor);
    expect(camera.position.distanceTo(r.target)).toBeCloseTo(50, 6);
  });
});
