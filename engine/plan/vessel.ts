// A geodesic layer on a pressure vessel (docs/winding-vessels.md): the vessel built from the
// definition's domes, Clairaut's constant from the polar openings and the band, one circuit of
// stations pole to pole and back on the chain of frusta, and the pattern (circuits, advance, pole
// dwell) that makes the circuits close evenly. Everything a geodesic layer cannot be wound from
// is found here, before a line is written, with the reason in words.
import { DEG, g6, gcd, isclose, pyrepr, RAD, rhe } from '../numeric.ts';
import type { Dome, GeodesicLayer, Machine, MandrelParameters, TowParameters } from '../wind/types.ts';
import { type BossTurns, geodesicCircuit, type PathStations, type Vessel } from './circuit.ts';
import { eyePlacement, fibreTangent, freeFibreCollision, headAngle, vesselSolid } from './eye.ts';
import { isotensoidBossRatio, isotensoidMeridian } from './isotensoid.ts';
import { PROGRAM_TOO_LONG_TEXT } from './limits.ts';
import { ellipsoidMeridian, type Meridian, profileMeridian } from './meridian.ts';
import { equatorCircuits } from './pattern.ts';

const TWO_PI = 2 * Math.PI;
/** How far a given pole dwell may miss the pattern's closing turn, radians (1e-9°). */
const CLOSURE_TOLERANCE = 1e-9 * DEG;
/** Circuit counts above the covering one searched for a pattern that a given dwell closes. */
const EXTRA_CIRCUITS = 8;
/** Frusta a dome meridian may have: the path keeps a station at each junction. */
export const MAX_MERIDIAN_SEGMENTS = 100_000;
/** Stations the path of one circuit may have. */
export const MAX_CIRCUIT_STATIONS = 2_000_000;

export interface GeodesicKinematics {
  vessel: Vessel;
  /** Clairaut's constant r·sin α, mm. */
  c: number;
  /** Fibre angle on the cylinder, degrees from the axis. */
  cylinderAngle: number;
  /** One circuit from z = 0 back to z = 0, without dwell; `turns` marks the two turnarounds. */
  path: PathStations;
  /**
   * The stations written as G-code: indices into `path`, first and last and both turnarounds
   * included, no more than the layer's station spacing of fibre apart. The path itself has a
   * station at every frustum junction (thousands per dome, for exact maths); writing them all
   * would only multiply the lines.
   */
  written: Int32Array;
  /** Mandrel turn of that circuit, radians. */
  circuitTurn: number;
  circuits: number;
  advance: number;
  /** Mandrel turn at each pole, radians (≥ 0), with the carriage parked at the turnaround. */
  poleDwell: number;
  /**
   * The machine at each written station: carriage X (mm), mandrel angle from the first station
   * (radians, before the circuits' and dwells' turns are added) and head B (degrees). Without a
   * delivery eye X = z, the angle is φ and B leans by the complement of the fibre angle.
   */
  x: Float64Array;
  a: Float64Array;
  b: Float64Array;
  /** Lines the layer writes after its `; Layer` comment. */
  lines: number;
}

/** Lines of a move of the carriage from `from` to `to` (the planner's move(): one per millimetre). */
function carriageMoveLines(from: number, to: number): number {
  return isclose(from, to) ? 1 : rhe(Math.abs(from - to)) + 1;
}

/**
 * Machine positions of the written stations (docs/winding-vessels.md, delivery eye), and the
 * checks that need them: the carriage within its travel, the free fibre clear of the mandrel and
 * bosses. Every circuit repeats the first one turned about the axis, so one circuit is checked.
 */
function machinePositions(
  k: { vessel: Vessel; c: number; path: PathStations; written: Int32Array },
  machine: Machine | null,
): { x: Float64Array; a: Float64Array; b: Float64Array } {
  const { z, r, phi, turns, mr, mz } = k.path;
  const count = k.written.length;
  const x = new Float64Array(count);
  const a = new Float64Array(count);
  const b = new Float64Array(count);
  const endTurn = turns[0] ?? -1;
  const startTurn = turns[1] ?? -1;
  const d = machine?.eyeRadius ?? null;
  const solid = d === null ? null : vesselSolid(k.vessel.R, k.vessel.L, k.vessel.start, k.vessel.end);
  let lead0 = 0;
  for (let j = 0; j < count; j++) {
    const i = k.written[j] ?? 0;
    const zi = z[i] ?? 0;
    const ri = r[i] ?? 0;
    if (d === null || solid === null) {
      // The head leans against the direction of travel by the complement of the fibre angle, and
      // stands straight where the fibre turns back.
      const lean = 90 - Math.asin(Math.min(1, k.c / ri)) * RAD;
      const sigma = i <= endTurn || i > startTurn ? 1 : -1;
      x[j] = zi;
      a[j] = phi[i] ?? 0;
      b[j] = i === endTurn || i === startTurn || lean === 0 ? 0 : -sigma * lean;
      continue;
    }
    const t = fibreTangent(ri, k.c, mr[i] ?? 0, mz[i] ?? 0);
    const eye = eyePlacement(zi, ri, t, d);
    if (j === 0) lead0 = eye.lead;
    x[j] = eye.x;
    a[j] = (phi[i] ?? 0) + eye.lead - lead0;
    b[j] = headAngle(eye.gamma * RAD, t[2]);
    const hit = freeFibreCollision(solid, zi, ri, t, eye.free, 1e-6 * k.vessel.R);
    if (hit !== null) {
      throw new LayerProblem(
        `the free fibre from the contact point at z = ${g6(zi)} mm (r = ${g6(ri)} mm) to the delivery eye passes through ${hit}`,
      );
    }
  }
  checkCarriage(x, z, k.written, machine);
  return { x, a, b };
}

/** The carriage stays within the machine's travel, from X 0 (where a layer starts and ends) on. */
function checkCarriage(x: Float64Array, z: number[], written: Int32Array, machine: Machine | null): void {
  const low = machine?.carriageMin ?? null;
  const high = machine?.carriageMax ?? null;
  if (low === null && high === null) return;
  const problem = carriageLimitText(0, machine);
  if (problem !== null) throw new LayerProblem(problem);
  for (let j = 0; j < x.length; j++) {
    const text = carriageLimitText(x[j] ?? 0, machine);
    if (text !== null) {
      const contact = z[written[j] ?? 0] ?? 0;
      const lead =
        machine?.eyeRadius == null ? '' : ` (its eye leads the contact point at z = ${g6(contact)} mm)`;
      throw new LayerProblem(`${text}${lead}`);
    }
  }
}

/** Why a carriage position lies outside the machine's travel, or null when it does not. */
export function carriageLimitText(x: number, machine: Machine | null): string | null {
  const low = machine?.carriageMin ?? null;
  const high = machine?.carriageMax ?? null;
  if (low !== null && x < low)
    return `the carriage would travel to X ${g6(x)} mm, below carriageMin ${pyrepr(low)} mm`;
  if (high !== null && x > high)
    return `the carriage would travel to X ${g6(x)} mm, beyond carriageMax ${pyrepr(high)} mm`;
  return null;
}

/** The dome at each end of a vessel, or null for a plain cylinder. */
export function vesselDomes(mandrel: MandrelParameters): { start: Dome; end: Dome } | null {
  const domes = mandrel.domes;
  if (domes === null) return null;
  const start = domes.both ?? domes.start;
  const end = domes.both ?? domes.end;
  return start === null || end === null ? null : { start, end };
}

/** Failure of a layer: the reason, in words. */
class LayerProblem extends Error {}

function openingRadius(dome: Dome, which: string, R: number): number {
  const r = dome.polarOpeningDiameter / 2;
  if (!(r < R)) {
    throw new LayerProblem(
      `the ${which} dome's polar opening (diameter ${pyrepr(dome.polarOpeningDiameter)} mm) is not smaller than the cylinder (diameter ${pyrepr(2 * R)} mm)`,
    );
  }
  return r;
}

/** The dome's meridian, and whether the geodesic turns at its boss edge rather than at r = c. */
function domeMeridian(
  dome: Dome,
  which: string,
  R: number,
  band: number,
  segments: number,
): { meridian: Meridian; bossTurn: boolean } {
  const opening = dome.polarOpeningDiameter / 2;
  switch (dome.type) {
    case 'hemispherical':
      return { meridian: ellipsoidMeridian(R, 1, segments, opening), bossTurn: false };
    case 'ellipsoidal':
      return { meridian: ellipsoidMeridian(R, dome.aspect ?? 1, segments, opening), bossTurn: false };
    case 'isotensoid': {
      // Shaped for the geodesic whose band just clears this opening; its boss seats a little
      // above that Clairaut radius, so that geodesic turns back at the boss edge.
      const shape = opening + band / 2;
      if (isotensoidBossRatio(shape / R) === null) {
        throw new LayerProblem(
          `no isotensoid ${which} dome exists for a polar opening of diameter ${pyrepr(dome.polarOpeningDiameter)} mm and a ${pyrepr(band)} mm band on a cylinder of diameter ${pyrepr(2 * R)} mm`,
        );
      }
      return { meridian: isotensoidMeridian(R, shape, segments), bossTurn: true };
    }
    case 'profile': {
      const points = dome.points ?? [];
      const first = points[0];
      if (first === undefined || Math.abs(first[0]) > 1e-9 * R || Math.abs(first[1] - R) > 1e-9 * R) {
        throw new LayerProblem(
          `the ${which} dome's profile must start at the equator [0, ${pyrepr(R)}] (half the cylinder diameter)`,
        );
      }
      try {
        return { meridian: profileMeridian(points), bossTurn: false };
      } catch (error) {
        if (error instanceof RangeError) throw new LayerProblem(`the ${which} dome's ${error.message}`);
        throw error;
      }
    }
  }
}

/** Clairaut's constant of the layer: given, or the band's inner edge on the larger opening. */
function clairautConstant(layer: GeodesicLayer, R: number, band: number, openings: number[]): number {
  const widest = Math.max(...openings);
  const least = widest + band / 2;
  if (layer.clairautRadius === 'auto') {
    if (!(least < R)) {
      throw new LayerProblem(
        `the polar opening (diameter ${pyrepr(2 * widest)} mm) is too large for the ${pyrepr(band)} mm band: the band's inner edge needs a Clairaut radius of ${g6(least)} mm, which is not below the cylinder radius ${pyrepr(R)} mm, so no fibre angle on the cylinder reaches it`,
      );
    }
    return least;
  }
  const c = layer.clairautRadius;
  if (!(c < R)) {
    throw new LayerProblem(
      `clairautRadius ${pyrepr(c)} mm is not below the cylinder radius ${pyrepr(R)} mm: no fibre angle on the cylinder has sin α = c / R`,
    );
  }
  if (c < least) {
    throw new LayerProblem(
      `clairautRadius ${pyrepr(c)} mm lets the band into the polar opening (diameter ${pyrepr(2 * widest)} mm): its inner edge needs at least ${g6(widest)} + ${g6(band / 2)} = ${g6(least)} mm`,
    );
  }
  return c;
}

/** (a mod 2π) in [0, 2π). */
function positiveTurn(a: number): number {
  const m = a % TWO_PI;
  return m < 0 ? m + TWO_PI : m;
}

/**
 * The advance q (coprime with N) that needs the least dwell after a circuit turning `turn`: the
 * first slot at or after where the geodesic alone ends. N·turn is at most a few hundred million,
 * so this is a short walk, never a list of every candidate.
 */
function leastDwellAdvance(N: number, turn: number): number {
  if (N === 1) return 1;
  const first = Math.ceil((positiveTurn(turn) * N) / TWO_PI);
  for (let k = 0; k < N; k++) {
    const q = (first + k) % N;
    if (q !== 0 && gcd(q, N) === 1) return q;
  }
  return 1;
}

/** Total dwell per circuit (radians, ≥ 0) that makes consecutive starts q slots of N apart. */
function closingDwell(N: number, q: number, turn: number): number {
  const dwell = positiveTurn((TWO_PI * q) / N - turn);
  // A geodesic that closes by itself leaves a rounding error, not a whole idle turn.
  return TWO_PI - dwell < CLOSURE_TOLERANCE ? 0 : dwell;
}

/** Circuits, advance and pole dwell: the given ones, the rest chosen so the pattern closes. */
function closePattern(
  layer: GeodesicLayer,
  R: number,
  c: number,
  band: number,
  turn: number,
): { circuits: number; advance: number; poleDwell: number } {
  const covering = equatorCircuits(R, c, band);
  const N = layer.circuits;
  if (N !== 'auto' && N < covering) {
    throw new LayerProblem(
      `circuits ${N} leave gaps: ${covering} bands of ${pyrepr(band)} mm are needed to cover the equator`,
    );
  }
  const q = layer.patternAdvance;
  const dwell = layer.poleDwellDegrees;
  const valid = (n: number, advance: number) => n === 1 || (advance < n && gcd(advance, n) === 1);
  // With the dwell free every circuit count closes, so the covering count (least overlap) is
  // taken, with the advance needing the least dwell; a given dwell closes only some counts.
  if (dwell === 'auto') {
    const n = N === 'auto' ? covering : N;
    const advance = q === 'auto' ? leastDwellAdvance(n, turn) : q;
    if (!valid(n, advance)) {
      throw new LayerProblem(
        `patternAdvance ${advance} must be below circuits ${n} and coprime with it, or the circuits leave slots empty`,
      );
    }
    return { circuits: n, advance, poleDwell: closingDwell(n, advance, turn) / 2 };
  }
  if (q !== 'auto' && N !== 'auto' && !valid(N, q)) {
    throw new LayerProblem(
      `patternAdvance ${q} must be below circuits ${N} and coprime with it, or the circuits leave slots empty`,
    );
  }
  // Consecutive starts lie `shift` apart; it must be q whole slots of N.
  const shift = positiveTurn(turn + 2 * dwell * DEG);
  const last = N === 'auto' ? covering + EXTRA_CIRCUITS : N;
  for (let n = N === 'auto' ? covering : N; n <= last; n++) {
    const slots = (shift * n) / TWO_PI;
    const whole = Math.round(slots);
    if (Math.abs(slots - whole) * (TWO_PI / n) > CLOSURE_TOLERANCE) continue;
    const advance = whole % n === 0 ? (n === 1 ? 1 : 0) : whole % n;
    if (advance === 0 || !valid(n, advance) || (q !== 'auto' && advance !== q)) continue;
    return { circuits: n, advance, poleDwell: dwell * DEG };
  }
  const n = N === 'auto' ? covering : N;
  const auto = closingDwell(n, q === 'auto' ? leastDwellAdvance(n, turn) : q, turn) / 2;
  throw new LayerProblem(
    `poleDwellDegrees ${pyrepr(dwell)}° closes no pattern of these circuits: consecutive circuits would not start an even number of slots apart; "auto" would dwell ${g6(auto * RAD)}°`,
  );
}

/**
 * Indices of the stations to write: greedily the farthest station still within `spacing` of fibre
 * of the last one written, and always the first, the last and the turnarounds. Consecutive path
 * stations are never more than `spacing` apart, so neither are the written ones.
 */
export function writtenStations(path: PathStations, spacing: number): Int32Array {
  const { s, turns } = path;
  const last = s.length - 1;
  const kept = [0];
  let from = 0;
  for (let i = 1; i < last; i++) {
    if (turns.includes(i) || (s[i + 1] ?? 0) - (s[from] ?? 0) > spacing) {
      kept.push(i);
      from = i;
    }
  }
  if (last > 0) kept.push(last);
  return Int32Array.from(kept);
}

/**
 * Refuses, before any large array exists, a layer whose circuit would have more stations than
 * allowed or whose program could not fit in `lineBudget` lines. The geodesic's length does not
 * depend on the spacing, so a circuit with stations only at the frustum junctions measures it.
 */
function checkSize(layer: GeodesicLayer, coarse: PathStations, covering: number, lineBudget: number): void {
  const fibre = coarse.s[coarse.s.length - 1] ?? 0;
  const spacing = layer.stationSpacingMM;
  const pieces = fibre / spacing;
  if (!(pieces + coarse.s.length <= MAX_CIRCUIT_STATIONS)) {
    throw new LayerProblem(
      `stationSpacingMM ${pyrepr(spacing)} mm gives about ${g6(pieces)} stations per circuit of ${g6(fibre)} mm of fibre, more than the ${MAX_CIRCUIT_STATIONS} the planner allows`,
    );
  }
  const circuits = layer.circuits === 'auto' ? covering : Math.max(covering, layer.circuits);
  if (!(circuits * Math.max(1, Math.ceil(pieces)) <= lineBudget))
    throw new LayerProblem(PROGRAM_TOO_LONG_TEXT);
}

/**
 * The vessel a definition describes (its domes' meridians as the geodesic layers use them), or
 * null when it has no domes or a dome that no layer could be planned on.
 */
export function vesselOf(mandrel: MandrelParameters, tow: TowParameters): Vessel | null {
  const domes = vesselDomes(mandrel);
  if (domes === null) return null;
  const R = mandrel.diameter / 2;
  const segments = Math.min(mandrel.meridianSegments, MAX_MERIDIAN_SEGMENTS);
  try {
    openingRadius(domes.start, 'start', R);
    openingRadius(domes.end, 'end', R);
    const start = domeMeridian(domes.start, 'start', R, tow.width, segments).meridian;
    const end = domeMeridian(domes.end, 'end', R, tow.width, segments).meridian;
    return { R, L: mandrel.windLength, start, end };
  } catch (error) {
    if (error instanceof LayerProblem || error instanceof RangeError) return null;
    throw error;
  }
}

/**
 * Plans a geodesic layer, or says why it cannot be wound: the text of a planning error.
 * `lineBudget` is how many lines the program has left (check 3).
 */
export function geodesicKinematics(
  layer: GeodesicLayer,
  mandrel: MandrelParameters,
  tow: TowParameters,
  machine: Machine | null = null,
  lineBudget = Number.POSITIVE_INFINITY,
): GeodesicKinematics | string {
  const domes = vesselDomes(mandrel);
  if (domes === null) return 'geodesic layers need a vessel: mandrelParameters.domes is not set';
  try {
    const R = mandrel.diameter / 2;
    const band = tow.width;
    const segments = mandrel.meridianSegments;
    if (segments > MAX_MERIDIAN_SEGMENTS) {
      throw new LayerProblem(
        `meridianSegments ${segments} is more than the ${MAX_MERIDIAN_SEGMENTS} frusta a dome may have`,
      );
    }
    const openings = [openingRadius(domes.start, 'start', R), openingRadius(domes.end, 'end', R)];
    const c = clairautConstant(layer, R, band, openings);
    const start = domeMeridian(domes.start, 'start', R, band, segments);
    const end = domeMeridian(domes.end, 'end', R, band, segments);
    const vessel: Vessel = { R, L: mandrel.windLength, start: start.meridian, end: end.meridian };
    const bossTurns: BossTurns = { start: start.bossTurn, end: end.bossTurn };
    const coarse = geodesicCircuit(vessel, c, Number.POSITIVE_INFINITY, bossTurns);
    if (coarse === null) {
      const which = start.meridian.r.every((r) => r > c) ? 'start' : 'end';
      throw new LayerProblem(
        `the geodesic (Clairaut radius ${g6(c)} mm) cannot turn back on the ${which} dome: its profile ends above that radius`,
      );
    }
    checkSize(layer, coarse, equatorCircuits(R, c, band), lineBudget);
    const path = geodesicCircuit(vessel, c, layer.stationSpacingMM, bossTurns) ?? coarse;
    const circuitTurn = path.phi[path.phi.length - 1] ?? 0;
    const pattern = closePattern(layer, R, c, band, circuitTurn);
    const written = writtenStations(path, layer.stationSpacingMM);
    const stations = written.length - 1;
    const dwellLines = pattern.poleDwell > 0 ? 2 : 0;
    const placed = machinePositions({ vessel, c, path, written }, machine);
    const first = placed.x[0] ?? 0;
    const last = placed.x[stations] ?? 0;
    return {
      vessel,
      c,
      cylinderAngle: (Math.asin(c / R) * 180) / Math.PI,
      path,
      written,
      circuitTurn,
      ...pattern,
      ...placed,
      // Carriage to the start, re-zero, first station; per circuit its comment, stations and
      // dwells; the head upright, the mandrel re-zeroed and, when an eye put the carriage off
      // X 0, the carriage back there.
      lines:
        carriageMoveLines(0, first) +
        2 +
        pattern.circuits * (1 + stations + dwellLines) +
        2 +
        (isclose(last, 0) ? 0 : carriageMoveLines(last, 0)),
    };
  } catch (error) {
    if (error instanceof LayerProblem) return error.message;
    throw error;
  }
}
