// The unwrapped view's drawing code, free of React and of the DOM: the surface laid flat on a 2D
// canvas (an OffscreenCanvas in the preview worker, like the 3D view), carriage position across
// and mandrel angle down at true scale (360° is the circumference), each layer's tow at its width
// in its colour. Zoom and pan are a plain scale and offset with no limits.
import type { ViewGeometry } from '../preview/protocol.ts';
import { layerColour, PENDING_COLOUR } from './colours.ts';
import { bandLayout } from './ribbon.ts';
import { StraightRuns } from './straight-runs.ts';
import { lastVertexAtOrBefore } from './timeline.ts';
import { segmentPieces, type UnwrappedCounts, unwrappedCounts, vertexAngles } from './unwrap.ts';

export type UnwrappedCommand =
  | { op: 'resize'; width: number; height: number; pixelRatio: number }
  /** Pointer deltas in CSS pixels. */
  | { op: 'pan'; dx: number; dy: number }
  /** Scales about a point of the canvas (CSS pixels; its centre when absent). */
  | { op: 'zoom'; factor: number; x?: number; y?: number }
  | { op: 'fit' }
  /** Layers drawn: those up to this one (0-based), the last of them emphasised; -1 for all alike. */
  | { op: 'layers'; upTo: number }
  | { op: 'scrub'; command: number };

export interface UnwrappedStats extends UnwrappedCounts {
  /** Pieces the last frame stroked (those of the layers shown). */
  drawnPieces: number;
  frames: number;
  frameMs: number;
}

type Context = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** Room for the axes' labels, CSS pixels. */
const LEFT = 46;
const BOTTOM = 22;
const TOP = 8;
const RIGHT = 10;

export class UnwrappedCanvas {
  readonly #canvas: HTMLCanvasElement | OffscreenCanvas;
  readonly #context: Context;
  readonly #onFrame: (stats: UnwrappedStats) => void;
  #geometry: ViewGeometry | null = null;
  #angles: Float32Array = new Float32Array(0);
  #counts: UnwrappedCounts = { segments: 0, wraps: 0, pieces: 0 };
  #width = 1;
  #height = 1;
  #ratio = 1;
  /** Pixels per millimetre, and the world point (mm) at the plot's top-left corner. */
  #scale = 1;
  #originX = 0;
  #originY = 0;
  #upTo = -1;
  #scrub = Number.POSITIVE_INFINITY;
  #frames = 0;
  #pending = 0;

  constructor(canvas: HTMLCanvasElement | OffscreenCanvas, onFrame: (stats: UnwrappedStats) => void) {
    this.#canvas = canvas;
    const context = canvas.getContext('2d') as Context | null;
    if (!context) throw new Error('no 2D canvas here');
    this.#context = context;
    this.#onFrame = onFrame;
  }

  get counts(): UnwrappedCounts {
    return this.#counts;
  }

  /** A new program is fitted; a re-plan of the one on show keeps the view where the user put it. */
  setGeometry(geometry: ViewGeometry): void {
    const keep = geometry.keepCamera && this.#geometry !== null;
    this.#geometry = geometry;
    this.#angles = vertexAngles(geometry.positions, geometry.vertexCount);
    this.#counts = unwrappedCounts(this.#angles);
    this.#scrub = geometry.commandCount;
    if (this.#upTo >= geometry.layers.length) this.#upTo = -1;
    if (!keep) {
      this.#upTo = -1;
      this.fit();
    }
    this.draw();
  }

  handle(command: UnwrappedCommand): void {
    switch (command.op) {
      case 'resize': {
        const ratio = Math.min(Math.max(command.pixelRatio || 1, 1), 2);
        if (!(command.width > 0 && command.height > 0)) return;
        const first = this.#width <= 1;
        this.#width = command.width;
        this.#height = command.height;
        this.#ratio = ratio;
        this.#canvas.width = Math.round(command.width * ratio);
        this.#canvas.height = Math.round(command.height * ratio);
        if (first) this.fit();
        break;
      }
      case 'pan':
        this.#originX -= command.dx / this.#scale;
        this.#originY -= command.dy / this.#scale;
        break;
      case 'zoom': {
        if (!(command.factor > 0) || !Number.isFinite(command.factor)) return;
        const px = (command.x ?? this.#width / 2) - LEFT;
        const py = (command.y ?? this.#height / 2) - TOP;
        // The world point under the pointer stays under it.
        const wx = this.#originX + px / this.#scale;
        const wy = this.#originY + py / this.#scale;
        this.#scale *= command.factor;
        this.#originX = wx - px / this.#scale;
        this.#originY = wy - py / this.#scale;
        break;
      }
      case 'fit':
        this.fit();
        break;
      case 'layers':
        this.#upTo = command.upTo;
        break;
      case 'scrub':
        this.#scrub = command.command;
        break;
    }
    this.#schedule();
  }

  /** The whole development in view: the carriage's travel across, one turn down. */
  fit(): void {
    const g = this.#geometry;
    const plotW = Math.max(this.#width - LEFT - RIGHT, 10);
    const plotH = Math.max(this.#height - TOP - BOTTOM, 10);
    if (!g) return;
    const { minX, maxX } = this.#travel();
    const spanX = Math.max(maxX - minX, 1);
    const spanY = this.#circumference();
    this.#scale = Math.min(plotW / spanX, plotH / spanY);
    this.#originX = minX - (plotW / this.#scale - spanX) / 2;
    this.#originY = -(plotH / this.#scale - spanY) / 2;
  }

  #circumference(): number {
    const g = this.#geometry;
    return 2 * Math.PI * Math.max(g?.mandrel.radius ?? 1, 1e-6);
  }

  #travel(): { minX: number; maxX: number } {
    const g = this.#geometry;
    let minX = g ? g.mandrel.startX : 0;
    let maxX = g ? g.mandrel.startX + g.mandrel.length : 1;
    if (g) {
      for (let k = 0; k < g.vertexCount; k++) {
        const x = g.positions[3 * k] as number;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
      }
    }
    return { minX, maxX };
  }

  #schedule(): void {
    if (this.#pending) return;
    const run = () => {
      this.#pending = 0;
      this.draw();
    };
    this.#pending =
      typeof requestAnimationFrame === 'function'
        ? requestAnimationFrame(run)
        : (setTimeout(run, 16) as unknown as number);
  }

  draw(): void {
    const started = performance.now();
    const ctx = this.#context;
    const g = this.#geometry;
    ctx.setTransform(this.#ratio, 0, 0, this.#ratio, 0, 0);
    ctx.fillStyle = '#f7f9fb';
    ctx.fillRect(0, 0, this.#width, this.#height);
    let drawnPieces = 0;
    if (g) {
      const s = this.#scale;
      const sx = (x: number) => LEFT + (x - this.#originX) * s;
      const perDegree = this.#circumference() / 360;
      const sy = (a: number) => TOP + (a * perDegree - this.#originY) * s;
      // The surface: the mandrel's travel, one turn.
      const { minX, maxX } = this.#travel();
      ctx.save();
      ctx.beginPath();
      ctx.rect(LEFT, TOP, this.#width - LEFT - RIGHT, this.#height - TOP - BOTTOM);
      ctx.clip();
      ctx.fillStyle = '#dde2e7';
      ctx.fillRect(sx(minX), sy(0), (maxX - minX) * s, 360 * perDegree * s);
      const layout = bandLayout(g);
      const band = Math.max(layout.width * s, 1);
      const done = lastVertexAtOrBefore(g.commandIndex, this.#scrub);
      const layers = g.layers.length > 0 ? g.layers : [{ firstVertex: 0, vertexCount: g.vertexCount }];
      const last = this.#upTo < 0 ? layers.length - 1 : Math.min(this.#upTo, layers.length - 1);
      ctx.lineCap = 'butt';
      ctx.lineJoin = 'round';
      for (let k = 0; k <= last; k++) {
        const layer = layers[k];
        if (!layer) continue;
        const from = Math.max(layer.firstVertex - 1, 0);
        const to = layer.firstVertex + layer.vertexCount - 1;
        if (to <= from) continue;
        const lays = layout.band[k] !== 0;
        ctx.globalAlpha = this.#upTo < 0 || k === last ? 1 : 0.3;
        // Done: the layer's band; not yet wound: a thin strip in the pending colour.
        if (from < done && lays) {
          const { path, pieces } = this.#trace(g, from, Math.min(to, done), sx, sy);
          ctx.strokeStyle = layerColour(k);
          ctx.lineWidth = band;
          ctx.stroke(path);
          // The path's centre line over the bands, so passes that cover the surface still show their pattern.
          if (band >= 4) {
            ctx.strokeStyle = 'rgba(0, 0, 0, 0.3)';
            ctx.lineWidth = 1;
            ctx.stroke(path);
          }
          drawnPieces += pieces;
        }
        if (to > done || !lays) {
          const { path, pieces } = this.#trace(g, Math.max(from, lays ? done : from), to, sx, sy);
          ctx.strokeStyle = PENDING_COLOUR;
          ctx.lineWidth = Math.max(band * 0.3, 1);
          ctx.stroke(path);
          drawnPieces += pieces;
        }
      }
      ctx.globalAlpha = 1;
      ctx.restore();
      this.#axes(ctx, sx, sy);
    }
    // A 2D canvas in a worker records its drawing and rasterises it after the task; reading one
    // pixel back rasterises it now, so the frame's figure and its notice are what reached the screen.
    ctx.getImageData(0, 0, 1, 1);
    this.#frames++;
    this.#onFrame({
      ...this.#counts,
      drawnPieces,
      frames: this.#frames,
      frameMs: performance.now() - started,
    });
  }

  /** The path from vertex `from` to `to`, split at the seam, and how many pieces it has. */
  #trace(
    g: ViewGeometry,
    from: number,
    to: number,
    sx: (x: number) => number,
    sy: (a: number) => number,
  ): { path: Path2D; pieces: number } {
    const p = g.positions;
    const angles = this.#angles;
    let pieces = 0;
    const path = new Path2D();
    const line = new StraightRuns(path, sx(p[3 * from] as number), sy(angles[from] as number));
    for (let k = from + 1; k <= to; k++) {
      const x0 = p[3 * (k - 1)] as number;
      const x1 = p[3 * k] as number;
      const a0 = angles[k - 1] as number;
      const a1 = angles[k] as number;
      const parts = segmentPieces(x0, a0, x1, a1);
      pieces += parts.length;
      if (parts.length === 2) {
        const [first, second] = parts as [(typeof parts)[0], (typeof parts)[0]];
        line.to(sx(first.x1), sy(first.a1));
        line.jump(sx(second.x0), sy(second.a0));
      }
      line.to(sx(x1), sy(a1));
    }
    line.end();
    return { path, pieces };
  }

  #axes(ctx: Context, sx: (x: number) => number, sy: (a: number) => number): void {
    const plotBottom = this.#height - BOTTOM;
    ctx.fillStyle = '#f7f9fb';
    ctx.fillRect(0, 0, LEFT, this.#height);
    ctx.fillRect(0, plotBottom, this.#width, BOTTOM);
    ctx.strokeStyle = '#8a939c';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(LEFT, TOP);
    ctx.lineTo(LEFT, plotBottom);
    ctx.lineTo(this.#width - RIGHT, plotBottom);
    ctx.stroke();
    ctx.fillStyle = '#3d4650';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let a = 0; a <= 360; a += 90) {
      const y = sy(a);
      if (y < TOP - 1 || y > plotBottom + 1) continue;
      ctx.fillText(`${a}°`, LEFT - 4, y);
    }
    // Carriage ticks: a round step about 80 px apart at this zoom.
    const raw = 80 / this.#scale;
    const power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw) ?? raw;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const firstTick = Math.ceil(this.#originX / step) * step;
    for (let x = firstTick; sx(x) <= this.#width - RIGHT; x += step) {
      ctx.fillText(`${Number(x.toPrecision(6))}`, sx(x), plotBottom + 4);
    }
    ctx.textAlign = 'left';
    ctx.fillText('mm', 4, plotBottom + 4);
  }
}
