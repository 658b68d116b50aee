// The 3D view's drawing code, free of React and of the DOM: the mandrel, the fibre path coloured by
// layer, the carriage marker and the camera. It draws on a page's canvas or, in the preview worker,
// on an OffscreenCanvas handed over by the page, so a big path's upload and first frame never hold
// up the page. The path is uploaded once; the scrub position, layer visibility and colours are
// uniforms and a small texture, so scrubbing never touches the vertex buffers.
import {
  AmbientLight,
  Box3,
  BufferAttribute,
  BufferGeometry,
  CylinderGeometry,
  DataTexture,
  DirectionalLight,
  Line,
  Mesh,
  MeshStandardMaterial,
  PerspectiveCamera,
  RGBAFormat,
  Scene,
  ShaderMaterial,
  Sphere,
  SphereGeometry,
  UnsignedByteType,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import type { ViewGeometry } from '../preview/protocol.ts';
import { CameraRig } from './camera-rig.ts';
import { LAYER_COLOURS, PENDING_COLOUR, rgb } from './colours.ts';
import { lastVertexAtOrBefore } from './timeline.ts';

export type ViewDirection = 'side' | 'end' | 'isometric';

const VERTEX_SHADER = /* glsl */ `
  // Uint32 attributes reach the shader as integers (three binds them with vertexAttribIPointer).
  attribute uint command;
  attribute float layer;
  uniform sampler2D layerTable;
  varying float vCommand;
  varying vec4 vLayer;
  void main() {
    vCommand = float(command);
    vLayer = texelFetch(layerTable, ivec2(int(layer), 0), 0);
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  }
`;

const FRAGMENT_SHADER = /* glsl */ `
  uniform float scrub;
  uniform vec3 pending;
  varying float vCommand;
  varying vec4 vLayer;
  void main() {
    if (vLayer.a < 0.5) discard;
    // Done up to the scrub position in the layer's colour; the rest in a pale grey.
    gl_FragColor = vCommand <= scrub + 0.5 ? vec4(vLayer.rgb, 1.0) : vec4(pending, 1.0);
  }
`;

export interface SceneStats {
  /** Vertices the last frame drew (from the renderer's own count of line segments). */
  drawnVertices: number;
  /** Vertices at or before the scrub position. */
  doneVertices: number;
  frames: number;
  /**
   * Times the path's vertex buffers were sent to the GPU (three's upload callback, fired on the
   * first upload and on every update): 3 per program, however much the view is scrubbed.
   */
  pathUploads: number;
}

/** The next animation frame: workers have requestAnimationFrame in Chromium, a timer elsewhere. */
function nextFrame(callback: () => void): () => void {
  if (typeof requestAnimationFrame === 'function') {
    const handle = requestAnimationFrame(callback);
    return () => cancelAnimationFrame(handle);
  }
  const handle = setTimeout(callback, 16);
  return () => clearTimeout(handle);
}

export class ToolpathScene {
  readonly #renderer: WebGLRenderer;
  readonly #scene = new Scene();
  readonly #camera = new PerspectiveCamera(40, 1, 0.1, 100_000);
  readonly #rig: CameraRig;
  /** The canvas's CSS height: pointer deltas come in CSS pixels. */
  #viewHeight = 1;
  readonly #marker: Mesh;
  #path: Line | null = null;
  #mandrel: Mesh | null = null;
  #geometry: ViewGeometry | null = null;
  #layerTable: DataTexture | null = null;
  readonly #material: ShaderMaterial;
  #bounds = new Sphere(new Vector3(), 1);
  #cancelFrame: (() => void) | null = null;
  #scrub = Number.POSITIVE_INFINITY;
  #stats: SceneStats = { drawnVertices: 0, doneVertices: 0, frames: 0, pathUploads: 0 };
  readonly #onFrame: ((stats: SceneStats) => void) | undefined;

  constructor(canvas: HTMLCanvasElement | OffscreenCanvas, onFrame?: (stats: SceneStats) => void) {
    this.#onFrame = onFrame;
    // preserveDrawingBuffer: the acceptance checks and screenshots read the pixels back.
    this.#renderer = new WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
    this.#renderer.setClearColor('#f7f9fb');
    this.#scene.add(new AmbientLight('#ffffff', 1.6));
    const sun = new DirectionalLight('#ffffff', 1.4);
    sun.position.set(1, 2, 3);
    this.#scene.add(sun);
    this.#rig = new CameraRig(this.#camera);
    this.#material = new ShaderMaterial({
      vertexShader: VERTEX_SHADER,
      fragmentShader: FRAGMENT_SHADER,
      uniforms: {
        scrub: { value: this.#scrub },
        pending: { value: new Vector3(...rgb(PENDING_COLOUR)) },
        layerTable: { value: null },
      },
    });
    this.#marker = new Mesh(new SphereGeometry(1, 16, 12), new MeshStandardMaterial({ color: '#d62728' }));
    this.#marker.visible = false;
    this.#scene.add(this.#marker);
    this.setView('isometric');
  }

  setGeometry(geometry: ViewGeometry): void {
    this.#clearPath();
    this.#geometry = geometry;
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(geometry.positions, 3));
    g.setAttribute('command', new BufferAttribute(geometry.commandIndex, 1));
    g.setAttribute('layer', new BufferAttribute(geometry.layerOf, 1));
    this.#stats.pathUploads = 0;
    for (const attribute of Object.values(g.attributes))
      (attribute as BufferAttribute).onUpload(() => {
        this.#stats.pathUploads++;
      });
    g.boundingSphere = null;
    this.#path = new Line(g, this.#material);
    this.#path.frustumCulled = false;
    this.#scene.add(this.#path);

    const layers = Math.max(1, geometry.layers.length);
    const table = new DataTexture(new Uint8Array(4 * layers), layers, 1, RGBAFormat, UnsignedByteType);
    for (let k = 0; k < layers; k++) this.#paintLayer(table, k, true);
    table.needsUpdate = true;
    this.#layerTable = table;
    this.#material.uniforms.layerTable = { value: table };

    const { radius, startX, length } = geometry.mandrel;
    const cylinder = new CylinderGeometry(radius * 0.985, radius * 0.985, length, 64, 1, false);
    cylinder.rotateZ(Math.PI / 2);
    cylinder.translate(startX + length / 2, 0, 0);
    this.#mandrel = new Mesh(
      cylinder,
      new MeshStandardMaterial({
        color: '#c9ced4',
        roughness: 0.85,
        metalness: 0.1,
        transparent: true,
        opacity: 0.9,
      }),
    );
    this.#scene.add(this.#mandrel);
    this.#marker.scale.setScalar(Math.max(radius * 0.06, 0.5));

    const box = new Box3().setFromBufferAttribute(g.getAttribute('position') as BufferAttribute);
    box.union(new Box3().setFromObject(this.#mandrel));
    box.getBoundingSphere(this.#bounds);
    this.setScrub(geometry.commandCount);
    this.fit();
  }

  /** Everything at or before command `command` is drawn as done; the marker sits at the carriage. */
  setScrub(command: number): void {
    this.#scrub = command;
    this.#material.uniforms.scrub = { value: command };
    const g = this.#geometry;
    if (g) {
      const last = lastVertexAtOrBefore(g.commandIndex, command);
      this.#stats.doneVertices = last + 1;
      const p = g.positions;
      this.#marker.position.set(p[3 * last] as number, p[3 * last + 1] as number, p[3 * last + 2] as number);
      this.#marker.visible = true;
    }
    this.requestRender();
  }

  setLayerVisible(layer: number, visible: boolean): void {
    if (!this.#layerTable) return;
    this.#paintLayer(this.#layerTable, layer, visible);
    this.#layerTable.needsUpdate = true;
    this.requestRender();
  }

  setView(direction: ViewDirection): void {
    const c = this.#bounds.center;
    const d = this.#viewDistance();
    const offset =
      direction === 'side'
        ? new Vector3(0, 0, d)
        : direction === 'end'
          ? new Vector3(d, 0, 0)
          : new Vector3(d, d, d).multiplyScalar(1 / Math.sqrt(3));
    this.#rig.place(c, offset);
    this.requestRender();
  }

  /** Keeps the direction, moves the camera so the whole part fills the view. */
  fit(): void {
    const c = this.#bounds.center;
    const direction = this.#camera.position.clone().sub(this.#rig.target).normalize();
    if (direction.lengthSq() === 0) direction.set(1, 1, 1).normalize();
    this.#camera.position.copy(c).addScaledVector(direction, this.#viewDistance());
    this.#rig.target.copy(c);
    this.#camera.near = Math.max(this.#bounds.radius / 1000, 0.01);
    this.#camera.far = this.#bounds.radius * 100 + 1000;
    this.#camera.updateProjectionMatrix();
    this.#rig.update();
    this.requestRender();
  }

  zoom(factor: number): void {
    this.#rig.zoom(factor);
    this.requestRender();
  }

  /** Drag to turn the part (deltas in CSS pixels). */
  orbit(dx: number, dy: number): void {
    this.#rig.orbit(dx, dy, this.#viewHeight);
    this.requestRender();
  }

  /** Drag with a modifier, or arrow keys, to move the view (deltas in CSS pixels). */
  pan(dx: number, dy: number): void {
    this.#rig.pan(dx, dy, this.#viewHeight);
    this.requestRender();
  }

  /** Sizes the drawing buffer; a frame is drawn only when the size really changed (a big path is slow to draw in software GL). */
  resize(width: number, height: number, pixelRatio: number): void {
    if (!(width > 0) || !(height > 0) || !Number.isFinite(width) || !Number.isFinite(height)) return;
    const ratio = Math.min(Math.max(Number.isFinite(pixelRatio) ? pixelRatio : 1, 1), 2);
    const size = this.#renderer.getSize(new Vector2());
    if (
      size.x === Math.floor(width) &&
      size.y === Math.floor(height) &&
      this.#renderer.getPixelRatio() === ratio
    )
      return;
    this.#viewHeight = height;
    this.#renderer.setPixelRatio(ratio);
    this.#renderer.setSize(width, height, false);
    this.#camera.aspect = width / height;
    this.#camera.updateProjectionMatrix();
    this.requestRender();
  }

  dispose(): void {
    this.#cancelFrame?.();
    this.#cancelFrame = null;
    this.#clearPath();
    this.#marker.geometry.dispose();
    (this.#marker.material as MeshStandardMaterial).dispose();
    this.#material.dispose();
    this.#renderer.dispose();
    // A worker may get many canvases over a session: give each context back at once.
    this.#renderer.forceContextLoss();
  }

  requestRender(): void {
    if (this.#cancelFrame) return;
    this.#cancelFrame = nextFrame(() => {
      this.#cancelFrame = null;
      this.renderNow();
    });
  }

  /** Draws at once rather than at the next animation frame (a new program: no reason to wait). */
  drawNow(): SceneStats {
    this.#cancelFrame?.();
    this.#cancelFrame = null;
    return this.renderNow();
  }

  renderNow(): SceneStats {
    this.#renderer.info.reset();
    this.#renderer.info.autoReset = false;
    this.#renderer.render(this.#scene, this.#camera);
    // A line strip of n vertices is counted as n − 1 segments.
    const segments = this.#renderer.info.render.lines;
    this.#stats = {
      drawnVertices: this.#path && segments > 0 ? segments + 1 : 0,
      doneVertices: this.#stats.doneVertices,
      frames: this.#stats.frames + 1,
      pathUploads: this.#stats.pathUploads,
    };
    this.#onFrame?.(this.#stats);
    return this.#stats;
  }

  #viewDistance(): number {
    const fov = (this.#camera.fov * Math.PI) / 180;
    return (this.#bounds.radius / Math.sin(fov / 2)) * 1.1;
  }

  #paintLayer(table: DataTexture, layer: number, visible: boolean): void {
    const data = table.image.data as Uint8Array;
    const [r, g, b] = rgb(LAYER_COLOURS[layer % LAYER_COLOURS.length] as string);
    data[4 * layer] = Math.round(r * 255);
    data[4 * layer + 1] = Math.round(g * 255);
    data[4 * layer + 2] = Math.round(b * 255);
    data[4 * layer + 3] = visible ? 255 : 0;
  }

  #clearPath(): void {
    if (this.#path) {
      this.#scene.remove(this.#path);
      this.#path.geometry.dispose();
      this.#path = null;
    }
    if (this.#mandrel) {
      this.#scene.remove(this.#mandrel);
      this.#mandrel.geometry.dispose();
      (this.#mandrel.material as MeshStandardMaterial).dispose();
      this.#mandrel = null;
    }
    this.#layerTable?.dispose();
    this.#layerTable = null;
    this.#geometry = null;
    this.#marker.visible = false;
  }
}
