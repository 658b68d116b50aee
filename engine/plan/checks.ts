// Static planning checks 1–9 of spec/winding.md §3, run for each layer just before it is
// generated. Guards 10 and 11 belong to generation (planner.ts).
import { PlanningError } from '../errors.ts';
import { g6, gcd, pyrepr, rhe } from '../numeric.ts';
import type { HelicalLayer, Layer, WindDefinition } from '../wind/types.ts';
import { coneKinematics, coneLayerProblem, isCone } from './cone.ts';
import { type HelicalKinematics, helicalKinematics } from './kinematics.ts';
import { MAX_PROGRAM_LINES, PROGRAM_TOO_LONG_TEXT } from './limits.ts';
import { carriageLimitText, type GeodesicKinematics, geodesicKinematics } from './vessel.ts';

/** What the checks found out about a layer that generation needs. */
export type LayerKinematics = HelicalKinematics | GeodesicKinematics | null;

export { MAX_PROGRAM_LINES } from './limits.ts';

/** What the checks carry from one layer to the next. */
export interface CheckState {
  /** The size estimate E so far: the header, init and feed lines plus every layer checked. */
  estimate: number;
  terminalSeen: boolean;
}

export function initialCheckState(): CheckState {
  return { estimate: 3, terminalSeen: false };
}

export function planningError(index: number, text: string): PlanningError {
  return new PlanningError(`Layer ${index}: ${text}`);
}

/**
 * Lines a layer will write, without its `; Layer` comment (the estimate of check 3). On a cone a
 * pass is its lean moves and two lines per station (`coneStations` of them); a geodesic layer
 * counts its own (`geodesicLines`).
 */
export function estimatedLayerLines(
  layer: Layer,
  windLength: number,
  numCircuits: number,
  coneStations: number | null = null,
  geodesicLines = 0,
): number {
  switch (layer.windType) {
    case 'geodesic':
      return geodesicLines;
    case 'hoop':
      return layer.terminal ? rhe(windLength) + 4 : 2 * rhe(windLength) + 10;
    case 'skip':
      return 2;
    case 'helical': {
      const pass =
        coneStations === null
          ? rhe(layer.leadInMM) + rhe(Math.abs(windLength - layer.leadInMM)) + 5
          : 2 * coneStations + 3;
      return (layer.skipInitialNearLock ? 0 : 2) + numCircuits * (2 * pass + 1) + 4;
    }
  }
}

/**
 * Runs checks 1–9 for layer `index` (1-based) and advances `state`; throws the first failure.
 * Returns the helical or geodesic kinematics so generation does not recompute them.
 */
export function checkLayer(
  index: number,
  layer: Layer,
  definition: WindDefinition,
  state: CheckState,
): LayerKinematics {
  const fail = (text: string): PlanningError => planningError(index, text);
  if (state.terminalSeen) throw fail('terminal layer must be the final entry in the definition');
  if (layer.windType === 'hoop' && layer.terminal) state.terminalSeen = true;
  const mandrel = definition.mandrelParameters;
  const cone = isCone(mandrel);
  if (cone && layer.windType === 'hoop') throw fail('hoop layers on a cone are not supported yet');

  let kinematics: HelicalKinematics | null = null;
  if (layer.windType === 'helical') {
    const angle = layer.windAngle;
    if (!(angle >= 1.0 && angle <= 89.0)) {
      throw fail(`wind angle ${pyrepr(angle)}° must be between 1.0° and 89.0°`);
    }
    kinematics = helicalKinematics(layer, mandrel, definition.towParameters);
    if (cone) {
      const problem = coneLayerProblem(layer, mandrel);
      if (problem !== null) throw fail(problem);
      kinematics.cone = coneKinematics(layer, mandrel);
    }
  }

  let geodesic: GeodesicKinematics | null = null;
  if (layer.windType === 'geodesic') {
    const budget = MAX_PROGRAM_LINES - state.estimate - 1;
    const planned = geodesicKinematics(layer, mandrel, definition.towParameters, definition.machine, budget);
    if (typeof planned === 'string') throw fail(planned);
    geodesic = planned;
  }

  const L = mandrel.windLength;
  const stations = kinematics?.cone?.stations ?? null;
  const lines = estimatedLayerLines(layer, L, kinematics?.numCircuits ?? 0, stations, geodesic?.lines);
  state.estimate += 1 + lines;
  if (!(state.estimate <= MAX_PROGRAM_LINES)) {
    throw fail(PROGRAM_TOO_LONG_TEXT);
  }
  if (geodesic !== null) return geodesic;
  // Hoop and helical layers keep the reference's machine mapping (X = z from 0 to windLength, the
  // eye unused); their carriage travel is still the machine's to allow.
  if (definition.machine !== null) {
    const far = layer.windType === 'skip' ? 0 : L;
    const text = carriageLimitText(0, definition.machine) ?? carriageLimitText(far, definition.machine);
    if (text !== null) throw fail(text);
  }

  if (layer.windType !== 'helical' || kinematics === null) return null;
  const P = layer.patternNumber;
  if (layer.skipIndex >= P) throw fail('skipIndex must be less than patternNumber');
  if (gcd(layer.skipIndex, P) !== 1) {
    throw fail('skipIndex and patternNumber must be coprime for full coverage');
  }
  if (layer.leadInMM >= L) {
    throw fail(
      `leadInMM (${pyrepr(layer.leadInMM)}mm) must be less than the mandrel windLength (${pyrepr(L)}mm); a longer lead-in drives the carriage off the mandrel into negative coordinates`,
    );
  }
  const N = kinematics.numCircuits;
  if (N % P !== 0) {
    throw fail(`computed circuit count is not divisible by patternNumber (${N} % ${P} != 0)`);
  }
  const lock = lockConditionText(layer);
  if (lock !== null) throw fail(lock);
  return kinematics;
}

// A remainder just below the slot width also fails: that is the reference behaviour (§3).
const LOCK_TOLERANCE = 5e-7;

/** Lock conditions 1 and 2 (checks 8, 9) for P > 1: the failure text, or null when both hold. */
export function lockConditionText(layer: HelicalLayer): string | null {
  const P = layer.patternNumber;
  if (P <= 1) return null;
  const slot = 360 / P;
  const m = (2 * layer.lockDegrees) % 360;
  if (m % slot > LOCK_TOLERANCE) {
    return `lockDegrees ${pyrepr(layer.lockDegrees)}° produces a per-circuit mandrel advance of ${g6(m)}° (mod 360°), which is not divisible by the in-pattern slot width of ${g6(slot)}° (= 360 / patternNumber ${P}). Circuits will overlap and leave bare mandrel strips. lockDegrees must be a multiple of ${g6(slot / 2)}°. Nearest valid values: ${lockSuggestions(layer)}`;
  }
  const s = (m + layer.skipIndex * slot) % 360;
  const j = rhe(s / slot) % P;
  const divisor = gcd(j, P);
  if (divisor !== 1) {
    return `lockDegrees ${pyrepr(layer.lockDegrees)}° with skipIndex ${layer.skipIndex} and patternNumber ${P} produces an intra-pattern slot stride of ${j} (in units of ${g6(slot)}°), which is not coprime with patternNumber (gcd = ${divisor}). All in-pattern circuits will alias onto fewer positions, leaving bare strips. Nearest valid lockDegrees values: ${lockSuggestions(layer)}`;
  }
  return null;
}

function lockSuggestions(layer: HelicalLayer): string {
  const slot = 360 / layer.patternNumber;
  const h = slot / 2;
  const P2 = rhe(360 / slot);
  const c = rhe(layer.lockDegrees / h);
  const found: string[] = [];
  for (let d = -16; d <= 16 && found.length < 3; d++) {
    const v = (c + d) * h;
    if (v <= 0) continue;
    const m2 = (2 * v) % 360;
    if (m2 % slot > LOCK_TOLERANCE) continue;
    const j2 = rhe(((m2 + layer.skipIndex * slot) % 360) / slot) % P2;
    if (gcd(j2, P2) === 1) found.push(`${g6(v)}°`);
  }
  return found.length === 0 ? 'multiples of 180°' : found.join(', ');
}
