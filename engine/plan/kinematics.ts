// Helical layer kinematics (spec/winding.md §4.5). Shared by the planning checks (§3, which need
// the circuit count) and the generator; every expression keeps the spec's order and form.
import { DEG } from '../numeric.ts';
import type { HelicalLayer, MandrelParameters, TowParameters } from '../wind/types.ts';
import type { ConeKinematics } from './cone.ts';

export interface HelicalKinematics {
  numCircuits: number;
  patternStep: number;
  passRotDeg: number;
  leadInDeg: number;
  mainDeg: number;
  head: number;
  startInc: number;
  dwell: number;
  /** The cone's geodesic when the mandrel is a cone (its circuits are counted at the large end). */
  cone: ConeKinematics | null;
}

export function helicalKinematics(
  layer: HelicalLayer,
  mandrel: MandrelParameters,
  tow: TowParameters,
): HelicalKinematics {
  const L = mandrel.windLength;
  const C = Math.PI * mandrel.diameter;
  const towArc = tow.width / Math.cos(layer.windAngle * DEG);
  const numCircuits = Math.ceil(C / towArc);
  const passRotMM = L * Math.tan(layer.windAngle * DEG);
  const passRotDeg = 360 * (passRotMM / C);
  const degPerMM = passRotDeg / L;
  return {
    numCircuits,
    patternStep: 360 * (1 / numCircuits),
    passRotDeg,
    leadInDeg: degPerMM * layer.leadInMM,
    mainDeg: degPerMM * (L - layer.leadInMM),
    head: -1 * (90 - layer.windAngle),
    startInc: layer.skipIndex * (360 / layer.patternNumber),
    dwell: layer.lockDegrees - layer.leadOutDegrees - (passRotDeg % 360),
    cone: null,
  };
}
