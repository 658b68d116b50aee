// Geometry for the 3D preview: the fibre path laid on the mandrel surface as one polyline.
//
// Axis convention (right-handed, millimetres): the mandrel axis is +X and the carriage position
// is x; a mandrel angle θ (degrees, physical) puts the point at y = r·cos θ, z = r·sin θ with
// r = D/2 from the Parameters header. Physical angles keep counting across G92 re-zeros (G92
// shifts the logical coordinates only), so the path stays continuous; G28 returns the named
// axes to their physical zero. Long mandrel turns are cut into steps of at most
// `maxStepDegrees`, so every segment follows the surface instead of cutting a chord through it.
//
// The program is read by the simulator (same parsing, same errors): a program the simulator
// rejects has no preview.
import { DEG } from '../numeric.ts';
import { allDigits, decodeText, startsWithAscii, trimEnd } from './bytes.ts';
import { GcodeSimulator, type MotionObserver } from './simulator.ts';
import type { SimulationSummary } from './types.ts';

export interface PreviewOptions {
  /** Largest mandrel turn between two consecutive vertices, in degrees (default 5). */
  maxStepDegrees?: number;
  /** Preview a program without the Parameters header on a mandrel fitted to its path. */
  fitMandrel?: boolean;
}

/**
 * Vertices of one `; Layer {i} of {n}: {type}` section. The layers partition [0, vertexCount):
 * the first starts at vertex 0 (the start position), each next one where the previous ended, so
 * a layer's drawn path begins at vertex `firstVertex − 1` when `firstVertex > 0`.
 */
export interface PreviewLayer {
  index: number;
  windType: string;
  firstVertex: number;
  vertexCount: number;
}

export interface PreviewGeometry {
  /** x, y, z per vertex (see the axis convention above). */
  positions: Float32Array;
  /**
   * Per vertex, the 1-based number of the command that reached it, counting lines that are not
   * blank and not only a comment (the numbering of the streaming progress, spec §6.5 `line`);
   * 0 for the start vertex. Non-decreasing, so a scrubber shows vertices with index ≤ k.
   */
  commandIndex: Uint32Array;
  /**
   * Per vertex, the estimated machine time in seconds at which the carriage reaches it (the
   * simulator's time model, interpolated along a move); non-decreasing, the last equals
   * `summary.estimated_time_s` unless the program ends with dwells.
   */
  elapsed: Float32Array;
  layers: PreviewLayer[];
  radius: number;
  vertexCount: number;
  /** Number of commands (the largest value a scrubber needs). */
  commandCount: number;
  summary: SimulationSummary;
  /** Set when the program had no Parameters header: the diameter the mandrel was fitted at (mm). */
  fittedDiameter?: number;
}

/** A turn of more than this many steps is drawn with longer steps (a guard against absurd input). */
const MAX_STEPS_PER_MOVE = 10_000;
const LAYER_PREFIX = '; Layer ';

/** Builds the preview from chunks pushed in order; runs in a Web Worker as well as in Node. */
export class PreviewBuilder implements MotionObserver {
  readonly #simulator: GcodeSimulator;
  readonly #maxStep: number;

  #positions = new Float32Array(3 * 1024);
  #commands = new Uint32Array(1024);
  #times = new Float32Array(1024);
  /** Machine time at the last vertex. */
  #pt = 0;
  #count = 0;
  /** 1 until the header gives the diameter: vertices made before it sit on a unit circle. */
  #radius = 1;
  readonly #layers: PreviewLayer[] = [];

  /** Physical carriage position and mandrel angle of the last vertex. */
  #px = 0;
  #pa = 0;
  /** physical = logical + offset. */
  #offsetX = 0;
  #offsetA = 0;

  constructor(options: PreviewOptions = {}) {
    const step = options.maxStepDegrees ?? 5;
    if (!(step > 0) || !Number.isFinite(step))
      throw new RangeError('maxStepDegrees must be a positive number');
    this.#maxStep = step;
    this.#simulator = new GcodeSimulator(this, { fitMandrel: options.fitMandrel === true });
    this.#vertex(0, 0, 0, 0);
  }

  push(chunk: Uint8Array): void {
    this.#simulator.push(chunk);
  }

  finish(): PreviewGeometry {
    const summary = this.#simulator.finish();
    this.#closeLayer();
    const n = this.#count;
    return {
      positions: this.#positions.slice(0, 3 * n),
      commandIndex: this.#commands.slice(0, n),
      elapsed: this.#times.slice(0, n),
      layers: this.#layers,
      radius: this.#radius,
      vertexCount: n,
      commandCount: this.#simulator.commandLineCount,
      summary,
      ...(this.#simulator.fittedDiameter === null ? {} : { fittedDiameter: this.#simulator.fittedDiameter }),
    };
  }

  /** @internal MotionObserver */
  diameter(value: number): void {
    this.#radius = value / 2;
    // Scale the vertices made before the header from the unit circle.
    const r = this.#radius;
    const p = this.#positions;
    for (let k = 0; k < this.#count; k++) {
      p[3 * k + 1] = (p[3 * k + 1] as number) * r;
      p[3 * k + 2] = (p[3 * k + 2] as number) * r;
    }
  }

  /** @internal MotionObserver */
  comment(buf: Uint8Array, start: number, end: number): void {
    if (!startsWithAscii(buf, start, end, LAYER_PREFIX)) return;
    // `; Layer {i} of {n}: {type}`
    let p = start + LAYER_PREFIX.length;
    const indexStart = p;
    while (p < end && allDigits(buf, p, p + 1)) p++;
    if (p === indexStart || !startsWithAscii(buf, p, end, ' of ')) return;
    const index = Number(decodeText(buf, indexStart, p));
    p += 4;
    const totalStart = p;
    while (p < end && allDigits(buf, p, p + 1)) p++;
    if (p === totalStart || !startsWithAscii(buf, p, end, ': ')) return;
    p += 2;
    const typeEnd = trimEnd(buf, p, end);
    if (typeEnd === p) return;
    this.#closeLayer();
    this.#layers.push({
      index,
      windType: decodeText(buf, p, typeEnd),
      firstVertex: this.#layers.length === 0 ? 0 : this.#count,
      vertexCount: 0,
    });
  }

  /** @internal MotionObserver */
  move(command: number, x: number, a: number): void {
    this.#lineTo(command, x + this.#offsetX, a + this.#offsetA);
  }

  /** @internal MotionObserver */
  setPosition(x: number, a: number): void {
    this.#offsetX = this.#px - x;
    this.#offsetA = this.#pa - a;
  }

  /** @internal MotionObserver */
  home(command: number, x: boolean, a: boolean): void {
    if (x) this.#offsetX = 0;
    if (a) this.#offsetA = 0;
    const tx = x ? 0 : this.#px;
    const ta = a ? 0 : this.#pa;
    if (tx !== this.#px || ta !== this.#pa) this.#lineTo(command, tx, ta);
  }

  #closeLayer(): void {
    const layer = this.#layers[this.#layers.length - 1];
    if (layer !== undefined) layer.vertexCount = this.#count - layer.firstVertex;
  }

  /** Straight in (x, θ): a helix on the surface, cut into steps of at most `#maxStep` degrees. */
  #lineTo(command: number, x: number, a: number): void {
    const x0 = this.#px;
    const a0 = this.#pa;
    const t0 = this.#pt;
    const t = this.#simulator.elapsedSeconds;
    const dx = x - x0;
    const da = a - a0;
    const dt = t - t0;
    let steps = Math.ceil(Math.abs(da) / this.#maxStep);
    if (!(steps >= 1)) steps = 1;
    else if (steps > MAX_STEPS_PER_MOVE) steps = MAX_STEPS_PER_MOVE;
    this.#reserve(steps);
    for (let k = 1; k < steps; k++) {
      const f = k / steps;
      this.#vertex(command, x0 + dx * f, a0 + da * f, t0 + dt * f);
    }
    this.#vertex(command, x, a, t);
    this.#px = x;
    this.#pa = a;
    this.#pt = t;
  }

  #reserve(extra: number): void {
    const need = this.#count + extra;
    if (need <= this.#commands.length) return;
    let size = this.#commands.length * 2;
    while (size < need) size *= 2;
    const positions = new Float32Array(3 * size);
    positions.set(this.#positions.subarray(0, 3 * this.#count));
    this.#positions = positions;
    const commands = new Uint32Array(size);
    commands.set(this.#commands.subarray(0, this.#count));
    this.#commands = commands;
    const times = new Float32Array(size);
    times.set(this.#times.subarray(0, this.#count));
    this.#times = times;
  }

  #vertex(command: number, x: number, a: number, time: number): void {
    const k = this.#count;
    const r = this.#radius;
    const theta = a * DEG;
    const p = this.#positions;
    p[3 * k] = x;
    p[3 * k + 1] = r * Math.cos(theta);
    p[3 * k + 2] = r * Math.sin(theta);
    this.#commands[k] = command;
    this.#times[k] = time;
    this.#count = k + 1;
  }
}

/** The preview of a whole program: one byte array or chunks in order. */
export function buildPreview(
  input: Uint8Array | Iterable<Uint8Array>,
  options?: PreviewOptions,
): PreviewGeometry {
  const builder = new PreviewBuilder(options);
  if (input instanceof Uint8Array) builder.push(input);
  else for (const chunk of input) builder.push(chunk);
  return builder.finish();
}
