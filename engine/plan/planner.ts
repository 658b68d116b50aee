// The planner (spec/winding.md §4): the machine model, the layer strategies and the metrics, written
// as one generator that fills a single reusable byte buffer and hands it out whenever it holds a
// chunk's worth. Lines are formatted straight into bytes; no per-line strings or arrays exist, so
// a program of any length plans in constant memory.
import { fmt6, hdr, isclose, pmod, RAD, rhe, sq } from '../numeric.ts';
import type { HelicalLayer, HoopLayer, WindDefinition } from '../wind/types.ts';
import { analysePlan, type LayerProfile, layerProfile } from './analysis.ts';
import { checkLayer, initialCheckState, planningError } from './checks.ts';
import { type ConeKinematics, clairautRatio, coneTheta, fibreAngleAtRatio, thetaAtRatio } from './cone.ts';
import { writeAscii, writeFixed6 } from './fixed6.ts';
import type { HelicalKinematics } from './kinematics.ts';
import type { AxisFormat, LayerMetrics, PlanSummary } from './types.ts';
import { type GeodesicKinematics, vesselOf } from './vessel.ts';

/** Bytes handed out per chunk (the last chunk may be shorter). */
export const CHUNK_BYTES = 64 * 1024;
// Room past a full chunk: a G0/G92 line of checked coordinates is at most 81 bytes; longer text
// (verbose comments with huge values, the header) grows the buffer instead.
const SLACK_BYTES = 4096;
const LINE_ROOM = 96;
const COORDINATE_LIMIT = 1e15;

const SPACE = 32;
const NEWLINE = 10;
const LETTER_X = 88;
const G0_X = [71, 48, 32, LETTER_X] as const;

const COORDINATE_TEXT =
  'a coordinate is out of range (not finite, or 1e15 or more); check the mandrel, tow and layer parameters';
const ESTIMATE_TEXT =
  'the time or tow estimate is not a finite number; check the mandrel diameter and defaultFeedRate';

type Chunks = Generator<Uint8Array, void, undefined>;

export class Planner {
  #buf = new Uint8Array(CHUNK_BYTES + SLACK_BYTES);
  #pos = 0;
  #limit = CHUNK_BYTES + SLACK_BYTES - LINE_ROOM;
  readonly #mandrelLetter: number;
  readonly #headLetter: number;
  readonly #verbose: boolean;
  readonly #D: number;
  readonly #C0: number;
  readonly #F: number;
  readonly #definition: WindDefinition;
  #layerIndex = 0;

  // Machine state and metrics (§4.1, §4.7).
  #x = 0;
  #a = 0;
  #b = 0;
  #lines = 0;
  #tow = 0;
  #time = 0;
  /** The carriage moves without laying fibre (a delivery eye's way to and from X 0). */
  #transit = false;

  readonly axisFormat: AxisFormat;

  constructor(definition: WindDefinition, axisFormat: AxisFormat, verbose: boolean) {
    this.#definition = definition;
    this.axisFormat = axisFormat;
    this.#mandrelLetter = axisFormat === 'xyz' ? 89 : 65;
    this.#headLetter = axisFormat === 'xyz' ? 90 : 66;
    this.#verbose = verbose;
    this.#D = definition.mandrelParameters.diameter;
    this.#C0 = Math.PI * this.#D;
    this.#F = definition.defaultFeedRate;
  }

  /** The whole program. Each yielded chunk is a view of the one buffer, valid until resumed. */
  *run(): Generator<Uint8Array, PlanSummary, undefined> {
    const def = this.#definition;
    const { diameter, windLength } = def.mandrelParameters;
    const { width, thickness } = def.towParameters;
    if (this.#verbose) this.#comment('Verbose output enabled');
    this.#comment(
      `Parameters {"mandrel":{"diameter":${hdr(diameter)},"windLength":${hdr(windLength)}},"tow":{"width":${hdr(width)},"thickness":${hdr(thickness)}}}`,
    );
    this.#text(this.axisFormat === 'xyz' ? 'G0 X0 Y0 Z0' : 'G0 X0 A0 B0');
    this.#text(`G0 F${fmt6(def.defaultFeedRate)}`);

    const layers: LayerMetrics[] = [];
    const profiles: LayerProfile[] = [];
    const checks = initialCheckState();
    const count = def.layers.length;
    for (let i = 0; i < count; i++) {
      const layer = def.layers[i];
      if (layer === undefined) continue;
      const index = i + 1;
      this.#layerIndex = index;
      const kinematics = checkLayer(index, layer, def, checks);
      profiles.push(layerProfile(layer, kinematics, def.mandrelParameters, def.towParameters));
      this.#comment(`Layer ${index} of ${count}: ${layer.windType}`);
      const n0 = this.#lines;
      const tow0 = this.#tow;
      const time0 = this.#time;
      if (layer.windType === 'hoop') yield* this.#hoop(layer);
      else if (layer.windType === 'skip') {
        yield* this.#move(0, layer.mandrelRotation, 0);
        this.#setMandrel(0);
      } else if (kinematics === null) {
        // Only a hoop or a skip layer has no kinematics; both are handled above.
      } else if ('path' in kinematics) yield* this.#geodesic(kinematics);
      else if (layer.windType === 'helical') yield* this.#helical(layer, kinematics);
      if (!Number.isFinite(this.#time) || !Number.isFinite(this.#tow)) {
        throw planningError(index, ESTIMATE_TEXT);
      }
      layers.push({
        index,
        wind_type: layer.windType,
        commands: this.#lines - n0,
        time_s: this.#time - time0,
        cumulative_time_s: this.#time,
        tow_m: this.#tow / 1000 - tow0 / 1000,
        cumulative_tow_m: this.#tow / 1000,
        terminal: layer.windType === 'hoop' && layer.terminal,
      });
      if (this.#pos >= CHUNK_BYTES) yield this.#take();
    }
    if (this.#pos > 0) yield this.#take();
    const summary: PlanSummary = {
      commands: this.#lines,
      timeSeconds: this.#time,
      towMeters: this.#tow / 1000,
      axisFormat: this.axisFormat,
      layers,
    };
    const vessel = vesselOf(def.mandrelParameters, def.towParameters);
    if (vessel !== null) summary.analysis = analysePlan(def, vessel, profiles);
    return summary;
  }

  *#hoop(layer: HoopLayer): Chunks {
    const { diameter: D, windLength: L } = this.#definition.mandrelParameters;
    const w = this.#definition.towParameters.width;
    const lock = 180;
    const theta = 90 - Math.atan(D / w) * RAD;
    const rot = L / w;
    const far = lock + rot * 360;
    const farLock = far + lock;
    const near = farLock + rot * 360;
    const nearLock = near + lock;
    yield* this.#move(0, lock, 0);
    yield* this.#move(this.#x, this.#a, -theta);
    yield* this.#move(L, far, this.#b);
    yield* this.#move(this.#x, farLock, 0);
    if (layer.terminal) return;
    yield* this.#move(this.#x, this.#a, theta);
    yield* this.#move(0, near, this.#b);
    yield* this.#move(this.#x, nearLock, 0);
    yield* this.#zeroAxes(nearLock);
  }

  /**
   * A helical layer (§4.5): the prologue, the circuits of each pattern with their out and back
   * passes, and the epilogue. Only the passes differ between a cylinder and a cone; each pass
   * takes the mandrel position and returns it advanced.
   */
  *#helical(layer: HelicalLayer, k: HelicalKinematics): Chunks {
    const P = layer.patternNumber;
    const patterns = k.numCircuits / P;
    const cone = k.cone;
    if (!layer.skipInitialNearLock) {
      yield* this.#move(0, layer.lockDegrees, 0);
      this.#setMandrel(0);
    }
    let pos = 0;
    for (let pattern = 1; pattern <= patterns; pattern++) {
      for (let circuit = 1; circuit <= P; circuit++) {
        this.#comment(`\tPattern: ${pattern}/${patterns} Circuit: ${circuit}/${P}`);
        for (let sigma = 1; sigma >= -1; sigma -= 2) {
          pos =
            cone === null
              ? yield* this.#cylinderPass(layer, k, sigma, pos)
              : yield* this.#conePass(layer, cone, sigma, pos);
        }
        pos += k.startInc;
      }
      pos += k.patternStep;
    }
    pos += layer.lockDegrees;
    yield* this.#move(this.#x, pos, 0);
    yield* this.#zeroAxes(pos);
  }

  /** One pass along a cylinder (σ = +1 out, −1 back): lead-in ramp, main run, lead-out, dwell. */
  *#cylinderPass(
    layer: HelicalLayer,
    k: HelicalKinematics,
    sigma: number,
    start: number,
  ): Generator<Uint8Array, number, undefined> {
    const L = this.#definition.mandrelParameters.windLength;
    const e1 = sigma === 1 ? layer.leadInMM : L - layer.leadInMM;
    const e2 = sigma === 1 ? L : 0;
    let pos = start;
    yield* this.#move(this.#x, pos, 0);
    yield* this.#move(this.#x, this.#a, sigma * -10);
    pos += k.leadInDeg;
    yield* this.#move(e1, pos, sigma * k.head);
    pos += k.mainDeg;
    yield* this.#move(e2, pos, this.#b);
    pos += layer.leadOutDegrees;
    yield* this.#move(this.#x, pos, sigma * -10);
    pos += k.dwell;
    return pos;
  }

  /**
   * One pass along a reducing cone (§4.5a): the geodesic station by station, one per millimetre,
   * the mandrel following θ(z) and the head ramping from its lift to the local lay angle over the
   * lead-in (there is no separate lead-in move); then the lead-out and the dwell.
   */
  *#conePass(
    layer: HelicalLayer,
    cone: ConeKinematics,
    sigma: number,
    start: number,
  ): Generator<Uint8Array, number, undefined> {
    const n = cone.stations;
    const zs = sigma === 1 ? 0 : cone.L;
    const ze = sigma === 1 ? cone.L : 0;
    const lift = sigma * -10;
    let pos = start;
    yield* this.#move(this.#x, pos, 0);
    yield* this.#move(this.#x, this.#a, lift);
    let previous = coneTheta(cone, zs);
    for (let i = 1; i <= n; i++) {
      const z = zs + (ze - zs) * (i / n);
      const q = clairautRatio(cone, z);
      const theta = thetaAtRatio(cone, q);
      pos += Math.abs(theta - previous);
      previous = theta;
      const ramp = Math.min(1, Math.abs(z - zs) / layer.leadInMM);
      const lay = sigma * -1 * (90 - fibreAngleAtRatio(q));
      yield* this.#move(z, pos, lift + ramp * (lay - lift));
    }
    pos += layer.leadOutDegrees;
    yield* this.#move(this.#x, pos, lift);
    pos += cone.dwell;
    return pos;
  }

  /**
   * A geodesic layer on a vessel: from the start of the cylinder, circuit after circuit pole to
   * pole and back along the planned stations (X = z, A = the mandrel angle, B the head's lean
   * from the local fibre angle), the mandrel dwelling at each turnaround with the carriage parked
   * so that consecutive circuits start the pattern's advance apart. Tow is the fibre laid.
   */
  *#geodesic(k: GeodesicKinematics): Chunks {
    const { r, s, turns } = k.path;
    const { written, x, a, b } = k;
    const count = written.length;
    const endTurn = turns[0] ?? -1;
    const startTurn = turns[1] ?? -1;
    const dwell = k.poleDwell;
    this.#transit = true;
    yield* this.#move(x[0] ?? 0, this.#a, 0);
    this.#transit = false;
    this.#setMandrel(0);
    this.#station(x[0] ?? 0, 0, b[0] ?? 0, 0);
    let base = 0;
    for (let circuit = 1; circuit <= k.circuits; circuit++) {
      this.#comment(`\tCircuit: ${circuit}/${k.circuits}`);
      for (let j = 1; j < count; j++) {
        const i = written[j] ?? 0;
        const angle = base + (a[j] ?? 0) + (i > endTurn ? dwell : 0) + (i > startTurn ? dwell : 0);
        const at = x[j] ?? 0;
        this.#station(at, angle * RAD, b[j] ?? 0, (s[i] ?? 0) - (s[written[j - 1] ?? 0] ?? 0));
        if (dwell > 0 && (i === endTurn || i === startTurn)) {
          this.#station(at, (angle + dwell) * RAD, 0, (r[i] ?? 0) * dwell);
        }
        if (this.#pos >= CHUNK_BYTES) yield this.#take();
      }
      base += k.circuitTurn + 2 * dwell;
    }
    // The head upright, then the mandrel re-zeroed where it stands, as a skip layer ends. The
    // closed pattern ends on a whole number of turns give or take rounding, so the re-zero of
    // the helical layer (to `pos mod 360`, then on to 360) could spin a full idle turn. A delivery
    // eye leaves the carriage ahead of the contact point: it goes back to X 0, where layers start.
    yield* this.#move(this.#x, base * RAD, 0);
    this.#setMandrel(0);
    if (!isclose(this.#x, 0)) {
      this.#transit = true;
      yield* this.#move(0, 0, 0);
      this.#transit = false;
    }
  }

  /** One station of a geodesic layer: a single line (described first when verbose). */
  #station(x: number, a: number, b: number, fibre: number): void {
    if (this.#verbose) this.#verboseMove(x, a, b, 1);
    this.#emit(x, a, b, fibre);
  }

  *#zeroAxes(theta: number): Chunks {
    this.#setPosition3(0, pmod(theta, 360), 0);
    yield* this.#move(this.#x, 360, this.#b);
    this.#setMandrel(0);
  }

  /** move() of §4.1: one line, or a segmented move of one line per millimetre of carriage travel. */
  *#move(x: number, a: number, b: number): Chunks {
    const sx = this.#x;
    const sa = this.#a;
    const sb = this.#b;
    const n = isclose(sx, x) ? 1 : rhe(Math.abs(sx - x)) + 1;
    if (this.#verbose) this.#verboseMove(x, a, b, n);
    if (n === 1) {
      this.#emit(x, a, b);
    } else {
      const dx = (x - sx) / (n - 1);
      const da = (a - sa) / (n - 1);
      const db = (b - sb) / (n - 1);
      let i = 0;
      while (i < n) {
        i = this.#segment(i, n, sx, sa, sb, dx, da, db);
        if (this.#pos >= CHUNK_BYTES) yield this.#take();
      }
    }
    if (this.#pos >= CHUNK_BYTES) yield this.#take();
  }

  /** Emits segment points i, i+1, … until the move ends or a chunk is full; returns the next i. */
  #segment(
    i: number,
    n: number,
    sx: number,
    sa: number,
    sb: number,
    dx: number,
    da: number,
    db: number,
  ): number {
    let k = i;
    while (k < n) {
      this.#emit(sx + k * dx, sa + k * da, sb + k * db);
      k++;
      if (this.#pos >= CHUNK_BYTES) break;
    }
    return k;
  }

  /**
   * A G0 line to (x, a, b) with its metrics (§4.7); guard 10 first. `fibre`, when given (≥ 0), is
   * the tow the move lays, in place of the cylinder's estimate.
   */
  #emit(x: number, a: number, b: number, fibre = -1): void {
    if (
      !(Math.abs(x) < COORDINATE_LIMIT && Math.abs(a) < COORDINATE_LIMIT && Math.abs(b) < COORDINATE_LIMIT)
    ) {
      throw planningError(this.#layerIndex, COORDINATE_TEXT);
    }
    if (this.#pos > this.#limit) this.#grow(LINE_ROOM);
    const buf = this.#buf;
    let pos = this.#pos;
    buf[pos] = G0_X[0];
    buf[pos + 1] = G0_X[1];
    buf[pos + 2] = G0_X[2];
    buf[pos + 3] = G0_X[3];
    pos = writeFixed6(buf, pos + 4, x);
    buf[pos] = SPACE;
    buf[pos + 1] = this.#mandrelLetter;
    pos = writeFixed6(buf, pos + 2, a);
    buf[pos] = SPACE;
    buf[pos + 1] = this.#headLetter;
    pos = writeFixed6(buf, pos + 2, b);
    buf[pos] = NEWLINE;
    this.#pos = pos + 1;
    this.#lines++;

    const dX = x - this.#x;
    const dA = a - this.#a;
    if (!this.#transit)
      this.#tow += fibre >= 0 ? fibre : Math.sqrt(sq(dX) + sq((dA / 360) * this.#D * Math.PI));
    const d = Math.sqrt(sq(dX) + sq((dA / 360) * this.#C0));
    this.#time += (d / this.#F) * 60;
    this.#x = x;
    this.#a = a;
    this.#b = b;
  }

  /** `G92 X0 A{a} B0` (setPosition of all three axes). */
  #setPosition3(x: number, a: number, b: number): void {
    this.#checkCoordinate(a);
    if (this.#pos > this.#limit) this.#grow(LINE_ROOM);
    const buf = this.#buf;
    let pos = writeAscii(buf, this.#pos, 'G92 X');
    pos = writeFixed6(buf, pos, x);
    buf[pos] = SPACE;
    buf[pos + 1] = this.#mandrelLetter;
    pos = writeFixed6(buf, pos + 2, a);
    buf[pos] = SPACE;
    buf[pos + 1] = this.#headLetter;
    pos = writeFixed6(buf, pos + 2, b);
    buf[pos] = NEWLINE;
    this.#pos = pos + 1;
    this.#lines++;
    this.#x = x;
    this.#a = a;
    this.#b = b;
  }

  /** `G92 A{a}` (setPosition of the mandrel only). */
  #setMandrel(a: number): void {
    this.#checkCoordinate(a);
    if (this.#pos > this.#limit) this.#grow(LINE_ROOM);
    const buf = this.#buf;
    let pos = writeAscii(buf, this.#pos, 'G92 ');
    buf[pos] = this.#mandrelLetter;
    pos = writeFixed6(buf, pos + 1, a);
    buf[pos] = NEWLINE;
    this.#pos = pos + 1;
    this.#lines++;
    this.#a = a;
  }

  #checkCoordinate(v: number): void {
    if (!(Math.abs(v) < COORDINATE_LIMIT)) throw planningError(this.#layerIndex, COORDINATE_TEXT);
  }

  #verboseMove(x: number, a: number, b: number, n: number): void {
    const from = `{carriage:${fmt6(this.#x)} mandrel:${fmt6(this.#a)} delivery_head:${fmt6(this.#b)}}`;
    const to = `{carriage:${fmt6(x)} mandrel:${fmt6(a)} delivery_head:${fmt6(b)}}`;
    this.#comment(n === 1 ? `Move ${from} -> ${to}` : `Segmented move ${from} -> ${to} in ${n} steps`);
  }

  #comment(body: string): void {
    this.#text(`; ${body}`);
  }

  /** One line of ASCII text (comments, header, init and feed). */
  #text(line: string): void {
    if (this.#pos + line.length + 1 > this.#buf.length) this.#grow(line.length + 1);
    const pos = writeAscii(this.#buf, this.#pos, line);
    this.#buf[pos] = NEWLINE;
    this.#pos = pos + 1;
    this.#lines++;
  }

  /** Hands out the filled part of the buffer and starts over at its beginning. */
  #take(): Uint8Array {
    const chunk = this.#buf.subarray(0, this.#pos);
    this.#pos = 0;
    return chunk;
  }

  // Only text longer than the slack (or many long lines between two chunk boundaries) gets here.
  #grow(need: number): void {
    if (this.#pos + need <= this.#limit) return;
    const bigger = new Uint8Array(Math.max(this.#buf.length * 2, this.#pos + need + LINE_ROOM));
    bigger.set(this.#buf.subarray(0, this.#pos));
    this.#buf = bigger;
    this.#limit = bigger.length - LINE_ROOM;
  }
}
