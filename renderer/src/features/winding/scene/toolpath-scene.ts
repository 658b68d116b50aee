// The 3D view's drawing code, free of React and of the DOM: the mandrel (a lathe surface of its
// profile, so cones and domes show), the fibre path as tow bands or lines coloured by layer, the
// carriage marker and the camera. It draws on a page's canvas or, in the preview worker, on an
// OffscreenCanvas handed over by the page, so a big path's upload and first frame never hold up the
// page. The path is uploaded once (the bands as a ribbon built here, in the worker, from the
// path's arrays); the scrub position, layer visibility and colours are uniforms and small
// textures, so scrubbing never touches the vertex buffers.
import {
  AmbientLight,
  Box3,
  BufferAttribute,
  BufferGeometry,
  CylinderGeometry,
  DataTexture,
  DirectionalLight,
  DoubleSide,
  DynamicDrawUsage,
  FloatType,
  InterleavedBuffer,
  InterleavedBufferAttribute,
  IntType,
  LatheGeometry,
  Line,
  Mesh,
  MeshStandardMaterial,
  NearestFilter,
  type Object3D,
  PerspectiveCamera,
  RedFormat,
  RGBAFormat,
  Scene,
  ShaderMaterial,
  SphereGeometry,
  UnsignedByteType,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import type { ViewGeometry } from '../preview/protocol.ts';
import { CameraRig } from './camera-rig.ts';
import { layerColour, PENDING_COLOUR, rgb } from './colours.ts';
import { frontIndices, surfaceNormals } from './far-side.ts';
import {
  BAND_FRAGMENT_SHADER,
  BAND_VERTEX_SHADER,
  LINE_FRAGMENT_SHADER,
  LINE_VERTEX_SHADER,
} from './path-shaders.ts';
import {
  type BandLayout,
  bandLayout,
  buildRibbon,
  type SampledProfile,
  sampledRadius,
  sampleProfile,
  TABLE_WIDTH,
  tableRows,
  tableTexel,
} from './ribbon.ts';
import { samePath } from './same-path.ts';
import { lastVertexAtOrBefore } from './timeline.ts';

export type ViewDirection = 'side' | 'end' | 'isometric';

/** Tow bands at their true width, or the path as one-pixel lines (fast for million-line programs). */
export type PathStyle = 'bands' | 'lines';

/** The pending part's strip, as a share of the band's width. */
const PENDING_WIDTH = 0.5;

export interface SceneStats {
  /** Vertices of the path the last frame drew (from the renderer's own count of its segments or band triangles). */
  drawnVertices: number;
  /** Vertices at or before the scrub position. */
  doneVertices: number;
  frames: number;
  /**
   * Times the path's vertex buffers were sent to the GPU (three's upload callback, fired on the
   * first upload and on every update): 3 per program, however much the view is scrubbed.
   */
  pathUploads: number;
  /** How long the last frame took to draw, ms (until the GPU finished it). */
  frameMs: number;
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
  #path: Object3D | null = null;
  /** The band path's far-side culling: what it reads, the index buffer it fills, where from. */
  #farSide: {
    centres: Float32Array;
    normals: Float32Array;
    vertexCount: number;
    index: BufferAttribute;
    geometry: BufferGeometry;
    /** Segments left out of the last frame. */
    culled: number;
    /** The camera position the index was made for. */
    from: Vector3;
  } | null = null;
  #mandrel: Mesh | null = null;
  #geometry: ViewGeometry | null = null;
  #layout: BandLayout | null = null;
  #profile: SampledProfile | null = null;
  #layerColours: DataTexture | null = null;
  #layerShape: DataTexture | null = null;
  #profileTexture: DataTexture | null = null;
  readonly #bandMaterial: ShaderMaterial;
  readonly #lineMaterial: ShaderMaterial;
  #style: PathStyle = 'bands';
  /** The part's extent: what Fit fills the view with. */
  readonly #box = new Box3(new Vector3(-1, -1, -1), new Vector3(1, 1, 1));
  #cancelFrame: (() => void) | null = null;
  #scrub = Number.POSITIVE_INFINITY;
  #stats: SceneStats = { drawnVertices: 0, doneVertices: 0, frames: 0, pathUploads: 0, frameMs: 0 };
  /** The path's own share of the renderer's counts in the last frame. */
  #pathDrawn = 0;
  readonly #probe = new Uint8Array(4);
  readonly #onFrame: ((stats: SceneStats) => void) | undefined;
  readonly #onError: ((message: string) => void) | undefined;

  constructor(
    canvas: HTMLCanvasElement | OffscreenCanvas,
    onFrame?: (stats: SceneStats) => void,
    onError?: (message: string) => void,
  ) {
    this.#onFrame = onFrame;
    this.#onError = onError;
    // preserveDrawingBuffer: the acceptance checks and screenshots read the pixels back.
    this.#renderer = new WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
    this.#renderer.setClearColor('#f7f9fb');
    canvas.addEventListener('webglcontextlost', () => this.#onError?.('the graphics context was lost'));
    this.#renderer.debug.onShaderError = (gl, _program, vertex, fragment) => {
      const log = `${gl.getShaderInfoLog(vertex) ?? ''}${gl.getShaderInfoLog(fragment) ?? ''}`.trim();
      this.#onError?.(`a shader did not compile: ${log}`);
    };
    this.#scene.add(new AmbientLight('#ffffff', 1.5));
    const sun = new DirectionalLight('#ffffff', 1.6);
    sun.position.set(1, 2, 3);
    this.#scene.add(sun);
    this.#rig = new CameraRig(this.#camera);
    const uniforms = () => ({
      scrub: { value: this.#scrub },
      pending: { value: new Vector3(...rgb(PENDING_COLOUR)) },
      layerColours: { value: null },
      layerShape: { value: null },
      profile: { value: null },
      profileRange: { value: new Vector3(0, 1, 2) },
      thickness: { value: 0 },
      pendingWidth: { value: PENDING_WIDTH },
    });
    this.#bandMaterial = new ShaderMaterial({
      vertexShader: BAND_VERTEX_SHADER,
      fragmentShader: BAND_FRAGMENT_SHADER,
      uniforms: uniforms(),
      // A band's corners wind one way or the other with its direction on the surface.
      side: DoubleSide,
    });
    this.#lineMaterial = new ShaderMaterial({
      vertexShader: LINE_VERTEX_SHADER,
      fragmentShader: LINE_FRAGMENT_SHADER,
      uniforms: uniforms(),
    });
    this.#marker = new Mesh(new SphereGeometry(1, 16, 12), new MeshStandardMaterial({ color: '#d62728' }));
    this.#marker.visible = false;
    this.#scene.add(this.#marker);
    this.setView('isometric');
  }

  /**
   * Shows a program. A re-plan of the program on show (`keepCamera`) keeps the camera where the
   * user put it; a new program is fitted to the view.
   */
  setGeometry(geometry: ViewGeometry): void {
    const reframe = !(geometry.keepCamera && this.#geometry);
    if (!reframe && this.#geometry && this.#layerColours && samePath(this.#geometry, geometry)) {
      // The same path re-planned (a figure that does not move the tow): what is on the GPU stands,
      // only the layers are all shown again, as a new program's would be.
      this.#geometry = geometry;
      for (let k = 0; k < Math.max(1, geometry.layers.length); k++)
        this.#paintLayer(this.#layerColours, k, true);
      this.#layerColours.needsUpdate = true;
    } else {
      this.#clearPath();
      this.#geometry = geometry;
      this.#layout = bandLayout(geometry);
      this.#profile = sampleProfile(geometry.mandrel);
      this.#buildTables(geometry, this.#layout, this.#profile);
      this.#buildPath();
      this.#buildMandrel(geometry);
      this.#measure(geometry, this.#layout);
    }
    this.setScrub(geometry.commandCount);
    if (reframe) this.fit();
  }

  /** Bands or lines: the path is built anew from the arrays this scene keeps (one upload again). */
  setStyle(style: PathStyle): void {
    if (style === this.#style) return;
    this.#style = style;
    if (!this.#geometry) return;
    this.#removePath();
    this.#buildPath();
    this.requestRender();
  }

  /** Everything at or before command `command` is drawn as done; the marker sits at the carriage. */
  setScrub(command: number): void {
    this.#scrub = command;
    for (const material of [this.#bandMaterial, this.#lineMaterial])
      material.uniforms.scrub = { value: command };
    const g = this.#geometry;
    if (g && this.#profile && this.#layout) {
      const last = lastVertexAtOrBefore(g.commandIndex, command);
      this.#stats.doneVertices = last + 1;
      const p = g.positions;
      const x = p[3 * last] as number;
      const y = p[3 * last + 1] as number;
      const z = p[3 * last + 2] as number;
      const layer = g.layerOf[last] ?? 0;
      const r = Math.hypot(y, z) || 1;
      const surface =
        sampledRadius(this.#profile, x) + (this.#layout.lift[layer] ?? 0) + this.#layout.thickness;
      this.#marker.position.set(x, (y / r) * surface, (z / r) * surface);
      this.#marker.visible = true;
    }
    this.requestRender();
  }

  setLayerVisible(layer: number, visible: boolean): void {
    if (!this.#layerColours) return;
    this.#paintLayer(this.#layerColours, layer, visible);
    this.#layerColours.needsUpdate = true;
    this.requestRender();
  }

  setView(direction: ViewDirection): void {
    const offset =
      direction === 'side'
        ? new Vector3(0, 0, 1)
        : direction === 'end'
          ? new Vector3(1, 0, 0)
          : new Vector3(1, 1, 1).normalize();
    this.#rig.place(this.#box.getCenter(new Vector3()), offset);
    this.fit();
  }

  /**
   * Keeps the direction and moves the camera so the part's box just fits the view, both ways
   * (a bounding sphere would leave a long part small).
   */
  fit(): void {
    const centre = this.#box.getCenter(new Vector3());
    const back = this.#camera.position.clone().sub(this.#rig.target).normalize();
    if (back.lengthSq() === 0) back.set(1, 1, 1).normalize();
    this.#camera.position.copy(centre).add(back);
    this.#rig.target.copy(centre);
    this.#rig.update();
    const right = new Vector3().setFromMatrixColumn(this.#camera.matrixWorld, 0);
    const up = new Vector3().setFromMatrixColumn(this.#camera.matrixWorld, 1);
    const tanV = Math.tan((this.#camera.fov * Math.PI) / 360);
    const tanH = tanV * this.#camera.aspect;
    let distance = 0;
    for (const corner of this.#corners()) {
      corner.sub(centre);
      const towards = corner.dot(back);
      distance = Math.max(
        distance,
        towards + Math.abs(corner.dot(right)) / tanH,
        towards + Math.abs(corner.dot(up)) / tanV,
      );
    }
    // A small margin so the part's edge is not cut by the frame.
    distance *= 1.04;
    const size = this.#box.getSize(new Vector3()).length() || 1;
    distance = Math.max(distance, size * 0.05);
    this.#camera.near = Math.max(size / 2000, 0.01);
    this.#camera.far = size * 50 + distance * 4 + 1000;
    this.#camera.position.copy(centre).addScaledVector(back, distance);
    this.#camera.updateProjectionMatrix();
    this.#rig.update();
    // In perspective the near end looks larger: centre what is seen rather than the box, then
    // come as close as that allows; a few rounds settle both.
    for (let round = 0; round < 4; round++) {
      const seen = this.#screenExtent();
      const reach = this.#camera.position.distanceTo(this.#rig.target);
      const shift = right
        .clone()
        .multiplyScalar(((seen.minX + seen.maxX) / 2) * tanH * reach)
        .addScaledVector(up, ((seen.minY + seen.maxY) / 2) * tanV * reach);
      this.#camera.position.add(shift);
      this.#rig.target.add(shift);
      this.#rig.update();
      const after = this.#screenExtent();
      const spread = Math.max((after.maxX - after.minX) / 2, (after.maxY - after.minY) / 2);
      if (spread > 0) this.#rig.zoom(Math.min(Math.max(spread / 0.94, 0.5), 2));
    }
    this.requestRender();
  }

  /** The eight corners of the part's box. */
  #corners(): Vector3[] {
    const { min, max } = this.#box;
    return Array.from(
      { length: 8 },
      (_, k) => new Vector3(k & 1 ? max.x : min.x, k & 2 ? max.y : min.y, k & 4 ? max.z : min.z),
    );
  }

  /** The part box's corners on screen, in normalised device coordinates. */
  #screenExtent(): { minX: number; maxX: number; minY: number; maxY: number } {
    const extent = { minX: 1, maxX: -1, minY: 1, maxY: -1 };
    for (const corner of this.#corners()) {
      corner.project(this.#camera);
      extent.minX = Math.min(extent.minX, corner.x);
      extent.maxX = Math.max(extent.maxX, corner.x);
      extent.minY = Math.min(extent.minY, corner.y);
      extent.maxY = Math.max(extent.maxY, corner.y);
    }
    return extent;
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
    this.#bandMaterial.dispose();
    this.#lineMaterial.dispose();
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
    this.#pathDrawn = 0;
    this.#renderer.info.autoReset = true;
    const started = performance.now();
    this.#cullFarSide();
    this.#renderer.render(this.#scene, this.#camera);
    // Reading one pixel back waits for the GPU, so the figure is the frame's real cost.
    const gl = this.#renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this.#probe);
    this.#stats = {
      // n − 1 segments (or twice as many band triangles) are n vertices.
      drawnVertices: this.#pathDrawn > 0 ? this.#pathDrawn + 1 : 0,
      doneVertices: this.#stats.doneVertices,
      frames: this.#stats.frames + 1,
      pathUploads: this.#stats.pathUploads,
      frameMs: performance.now() - started,
    };
    this.#onFrame?.(this.#stats);
    return this.#stats;
  }

  /** Fills the band path's index with the segments facing the camera, when the camera has moved. */
  #cullFarSide(): void {
    const far = this.#farSide;
    if (!far) return;
    this.#camera.updateMatrixWorld();
    const camera = this.#camera.position;
    if (far.from.equals(camera)) return;
    far.from.copy(camera);
    const written = frontIndices(
      far.centres,
      far.normals,
      far.vertexCount,
      camera,
      far.index.array as Uint32Array,
    );
    far.culled = Math.max(far.vertexCount - 1, 0) - written / 6;
    far.geometry.setDrawRange(0, written);
    far.index.clearUpdateRanges();
    far.index.addUpdateRange(0, written);
    far.index.needsUpdate = true;
  }

  #buildTables(geometry: ViewGeometry, layout: BandLayout, profile: SampledProfile): void {
    const layers = Math.max(1, geometry.layers.length);
    const rows = tableRows(layers);
    const colours = new DataTexture(
      new Uint8Array(4 * TABLE_WIDTH * rows),
      TABLE_WIDTH,
      rows,
      RGBAFormat,
      UnsignedByteType,
    );
    for (let k = 0; k < layers; k++) this.#paintLayer(colours, k, true);
    colours.needsUpdate = true;
    const shapeData = new Float32Array(4 * TABLE_WIDTH * rows);
    for (let k = 0; k < layers; k++) {
      const layer = geometry.layers[k];
      shapeData[4 * k] = layout.lift[k] ?? 0;
      shapeData[4 * k + 1] = layer?.firstVertex ?? 0;
      shapeData[4 * k + 2] = layer?.vertexCount ?? geometry.vertexCount;
      shapeData[4 * k + 3] = layout.band[k] ?? 1;
    }
    const shape = new DataTexture(shapeData, TABLE_WIDTH, rows, RGBAFormat, FloatType);
    shape.needsUpdate = true;
    const radius = new DataTexture(profile.radius, profile.radius.length, 1, RedFormat, FloatType);
    radius.needsUpdate = true;
    for (const texture of [colours, shape, radius]) {
      texture.magFilter = NearestFilter;
      texture.minFilter = NearestFilter;
    }
    this.#layerColours = colours;
    this.#layerShape = shape;
    this.#profileTexture = radius;
    for (const material of [this.#bandMaterial, this.#lineMaterial]) {
      const u = material.uniforms;
      u.layerColours = { value: colours };
      u.layerShape = { value: shape };
      u.profile = { value: radius };
      u.profileRange = { value: new Vector3(profile.x0, profile.dx, profile.radius.length) };
      u.thickness = { value: layout.thickness };
    }
  }

  #buildPath(): void {
    const geometry = this.#geometry;
    if (!geometry) return;
    this.#stats.pathUploads = 0;
    const counted = (upload: { onUpload(callback: () => void): unknown }) =>
      upload.onUpload(() => {
        this.#stats.pathUploads++;
      });
    let path: Object3D;
    if (this.#style === 'bands' && geometry.vertexCount > 1 && this.#layout && this.#profile) {
      const ribbon = buildRibbon(geometry, this.#layout, this.#profile);
      const g = new BufferGeometry();
      const vertices = new InterleavedBuffer(ribbon.centreAcross, 6);
      const commands = new BufferAttribute(ribbon.command, 1);
      const layers = new BufferAttribute(ribbon.layer, 1);
      layers.gpuType = IntType;
      g.setAttribute('position', new InterleavedBufferAttribute(vertices, 3, 0));
      g.setAttribute('across', new InterleavedBufferAttribute(vertices, 3, 3));
      g.setAttribute('command', commands);
      g.setAttribute('layer', layers);
      // Refilled before each frame the camera has moved for, with the segments not on the far side.
      const index = new BufferAttribute(ribbon.index, 1).setUsage(DynamicDrawUsage);
      g.setIndex(index);
      this.#farSide = {
        centres: ribbon.centreAcross,
        normals: surfaceNormals(ribbon.centreAcross, geometry.vertexCount, this.#profile),
        vertexCount: geometry.vertexCount,
        index,
        geometry: g,
        culled: 0,
        from: new Vector3(Number.NaN, 0, 0),
      };
      for (const buffer of [vertices, commands, layers]) counted(buffer);
      const mesh = new Mesh(g, this.#bandMaterial);
      mesh.onBeforeRender = (renderer) => {
        this.#pathDrawn -= renderer.info.render.triangles / 2;
      };
      // The far side's segments count as drawn: they are part of the path the frame shows, left
      // out only because the mandrel hides them.
      mesh.onAfterRender = (renderer) => {
        this.#pathDrawn += renderer.info.render.triangles / 2 + (this.#farSide?.culled ?? 0);
      };
      path = mesh;
    } else {
      const g = new BufferGeometry();
      g.setAttribute('position', new BufferAttribute(geometry.positions, 3));
      g.setAttribute('command', new BufferAttribute(geometry.commandIndex, 1));
      const layer = new BufferAttribute(geometry.layerOf, 1);
      layer.gpuType = IntType;
      g.setAttribute('layer', layer);
      for (const attribute of Object.values(g.attributes)) counted(attribute as BufferAttribute);
      const line = new Line(g, this.#lineMaterial);
      line.onBeforeRender = (renderer) => {
        this.#pathDrawn -= renderer.info.render.lines;
      };
      line.onAfterRender = (renderer) => {
        this.#pathDrawn += renderer.info.render.lines;
      };
      path = line;
    }
    path.frustumCulled = false;
    this.#path = path;
    this.#scene.add(path);
  }

  #buildMandrel(geometry: ViewGeometry): void {
    const { radius, startX, length } = geometry.mandrel;
    // A hair under the surface, so the bands lying on it never fight it for the same depth.
    const inset = 0.998;
    let shape: BufferGeometry;
    const outline = geometry.mandrel.profile;
    if (outline && outline.x.length >= 2) {
      const points: Vector2[] = [];
      for (let i = 0; i < outline.x.length; i++)
        points.push(new Vector2((outline.r[i] as number) * inset, outline.x[i] as number));
      shape = new LatheGeometry(points, 96);
      // The lathe turns about y; the mandrel's axis is x.
      shape.rotateZ(-Math.PI / 2);
    } else {
      shape = new CylinderGeometry(radius * inset, radius * inset, length, 96, 1, false);
      shape.rotateZ(Math.PI / 2);
      shape.translate(startX + length / 2, 0, 0);
    }
    this.#mandrel = new Mesh(
      shape,
      new MeshStandardMaterial({ color: '#b9c0c8', roughness: 0.7, metalness: 0.15 }),
    );
    this.#scene.add(this.#mandrel);
    this.#marker.scale.setScalar(Math.max(radius * 0.05, 0.5));
  }

  /** The part's box: the path over the mandrel, lifted by the layers' thickness. */
  #measure(geometry: ViewGeometry, layout: BandLayout): void {
    const box = new Box3().setFromArray(geometry.positions.subarray(0, 3 * geometry.vertexCount));
    if (this.#mandrel) box.union(new Box3().setFromObject(this.#mandrel));
    const layers = Math.max(1, geometry.layers.length);
    const top = (layout.lift[layers - 1] ?? 0) + layout.thickness + layout.width / 2;
    box.expandByVector(new Vector3(layout.width / 2, top, top));
    this.#box.copy(box);
  }

  #paintLayer(table: DataTexture, layer: number, visible: boolean): void {
    const data = table.image.data as Uint8Array;
    const [r, g, b] = rgb(layerColour(layer));
    const [x, y] = tableTexel(layer);
    const at = 4 * (y * TABLE_WIDTH + x);
    data[at] = Math.round(r * 255);
    data[at + 1] = Math.round(g * 255);
    data[at + 2] = Math.round(b * 255);
    data[at + 3] = visible ? 255 : 0;
  }

  #removePath(): void {
    this.#farSide = null;
    if (!this.#path) return;
    this.#scene.remove(this.#path);
    (this.#path as Mesh).geometry.dispose();
    this.#path = null;
  }

  #clearPath(): void {
    this.#removePath();
    if (this.#mandrel) {
      this.#scene.remove(this.#mandrel);
      this.#mandrel.geometry.dispose();
      (this.#mandrel.material as MeshStandardMaterial).dispose();
      this.#mandrel = null;
    }
    this.#layerColours?.dispose();
    this.#layerShape?.dispose();
    this.#profileTexture?.dispose();
    this.#layerColours = null;
    this.#layerShape = null;
    this.#profileTexture = null;
    this.#geometry = null;
    this.#marker.visible = false;
  }
}
