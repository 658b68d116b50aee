// What a design studio tells an engineer about a helical layer before planning it: the circuit
// count the planner will use (spec/winding.md §4.5), the pattern numbers that pass check 7 (§3),
// how much of the mandrel the bands cover, and — when the pattern number does not divide the
// circuits — the nearest values that would. Every figure comes from the planner's own kinematics,
// so the hint and the plan cannot disagree.
import { DEG } from '../numeric.ts';
import type { HelicalLayer, MandrelParameters, TowParameters } from '../wind/types.ts';
import { helicalKinematics } from './kinematics.ts';

export interface HelicalHint {
  /** N: circuits the planner lays for this angle, tow width and diameter. */
  circuits: number;
  /** Every pattern number P with N % P = 0, ascending (check 7 passes for exactly these). */
  patternNumbers: number[];
  /** Band width across the circumference times N over the circumference: 1 is exact, above 1 overlaps. */
  coverage: number;
  /** Whether the layer's pattern number divides N. */
  divides: boolean;
  /** The dividing pattern numbers nearest the layer's, below and above it (when it does not divide). */
  nearestPatternNumbers: number[];
  /** The wind angles on a 0.5° grid nearest the layer's, below and above, whose N the pattern number divides. */
  nearestWindAngles: number[];
}

/** The grid wind angles are suggested on: fine enough to find one, coarse enough to type. */
const ANGLE_STEP = 0.5;
/** The planner's accepted wind angles (check 2). */
const MIN_ANGLE = 1;
const MAX_ANGLE = 89;

function circuitsAt(layer: HelicalLayer, mandrel: MandrelParameters, tow: TowParameters, angle: number) {
  return helicalKinematics({ ...layer, windAngle: angle }, mandrel, tow).numCircuits;
}

export function helicalHint(
  layer: HelicalLayer,
  mandrel: MandrelParameters,
  tow: TowParameters,
): HelicalHint {
  const N = circuitsAt(layer, mandrel, tow, layer.windAngle);
  const patternNumbers: number[] = [];
  // N is bounded by the circumference over the tow width; a huge or non-finite N has no useful divisors.
  if (Number.isSafeInteger(N) && N > 0 && N <= 1_000_000) {
    for (let p = 1; p * p <= N; p++) {
      if (N % p !== 0) continue;
      patternNumbers.push(p);
      if (p !== N / p) patternNumbers.push(N / p);
    }
    patternNumbers.sort((a, b) => a - b);
  }
  const circumference = Math.PI * mandrel.diameter;
  const bandArc = tow.width / Math.cos(layer.windAngle * DEG);
  const P = layer.patternNumber;
  const divides = N % P === 0;
  const nearestPatternNumbers: number[] = [];
  const nearestWindAngles: number[] = [];
  if (!divides) {
    const below = patternNumbers.filter((p) => p < P).pop();
    const above = patternNumbers.find((p) => p > P);
    for (const p of [below, above]) if (p !== undefined) nearestPatternNumbers.push(p);
    const search = (direction: 1 | -1) => {
      const grid = layer.windAngle / ANGLE_STEP;
      const first = (direction === 1 ? Math.floor(grid) + 1 : Math.ceil(grid) - 1) * ANGLE_STEP;
      for (let a = first; a >= MIN_ANGLE && a <= MAX_ANGLE; a += direction * ANGLE_STEP) {
        if (circuitsAt(layer, mandrel, tow, a) % P === 0) return a;
      }
      return undefined;
    };
    for (const a of [search(-1), search(1)]) if (a !== undefined) nearestWindAngles.push(a);
  }
  return {
    circuits: N,
    patternNumbers,
    coverage: (N * bandArc) / circumference,
    divides,
    nearestPatternNumbers,
    nearestWindAngles,
  };
}
