// The unwrapped view's polylines laid into a canvas path with as few vertices as the screen can
// tell apart. A helical pass on a cylinder is one straight line there, and a turnaround one
// vertical line: their thousands of vertices would each cost the rasteriser a round join (most of
// a software-drawn frame) for nothing it could show.

/** Points closer than this on screen (CSS pixels) give no direction to follow. */
const MIN_STEP = 0.6;
/** How far (CSS pixels) a point may lie beside the line being drawn and still only extend it. */
export const TOLERANCE = 0.3;

/** What a path needs to be laid: Path2D has both. */
export interface PathSink {
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
}

/**
 * Lays a polyline into a path with as few vertices as the screen can tell apart: a point that lies
 * within TOLERANCE of the line from the last vertex laid, further along it, moves that line's end
 * instead of adding a vertex. Every point dropped stays within twice TOLERANCE of what is drawn.
 */
export class StraightRuns {
  readonly #path: PathSink;
  /** The last vertex laid. */
  #ax: number;
  #ay: number;
  /** The end of the line being drawn from it, not yet laid (NaN: none). */
  #px = Number.NaN;
  #py = Number.NaN;
  /** Its direction, unit length; zero while the end is too close to give one. */
  #ux = 0;
  #uy = 0;

  constructor(path: PathSink, x: number, y: number) {
    this.#path = path;
    path.moveTo(x, y);
    this.#ax = x;
    this.#ay = y;
  }

  to(x: number, y: number): void {
    if (!Number.isNaN(this.#px) && (this.#ux !== 0 || this.#uy !== 0)) {
      const rx = x - this.#ax;
      const ry = y - this.#ay;
      const along = rx * this.#ux + ry * this.#uy;
      const beside = Math.abs(rx * this.#uy - ry * this.#ux);
      const reached = (this.#px - this.#ax) * this.#ux + (this.#py - this.#ay) * this.#uy;
      if (beside > TOLERANCE || along < reached) {
        this.#path.lineTo(this.#px, this.#py);
        this.#ax = this.#px;
        this.#ay = this.#py;
        this.#ux = 0;
        this.#uy = 0;
      }
    }
    this.#px = x;
    this.#py = y;
    const dx = x - this.#ax;
    const dy = y - this.#ay;
    const length = Math.hypot(dx, dy);
    // The direction is set by the first point far enough away, and kept while points follow it.
    if (this.#ux === 0 && this.#uy === 0 && length >= MIN_STEP) {
      this.#ux = dx / length;
      this.#uy = dy / length;
    } else if (length < MIN_STEP) {
      this.#ux = 0;
      this.#uy = 0;
    }
  }

  /** Lays what is pending and starts again at (x, y) without a line to it (the seam). */
  jump(x: number, y: number): void {
    this.end();
    this.#path.moveTo(x, y);
    this.#ax = x;
    this.#ay = y;
  }

  end(): void {
    if (!Number.isNaN(this.#px)) this.#path.lineTo(this.#px, this.#py);
    this.#ax = Number.isNaN(this.#px) ? this.#ax : this.#px;
    this.#ay = Number.isNaN(this.#py) ? this.#ay : this.#py;
    this.#px = Number.NaN;
    this.#py = Number.NaN;
    this.#ux = 0;
    this.#uy = 0;
  }
}
