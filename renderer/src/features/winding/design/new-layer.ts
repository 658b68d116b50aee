// The layer "Add … layer" appends. A helical layer starts at 45° with a pattern number the
// planner accepts for the current mandrel and tow (the smallest above 1 that divides its circuit
// count, so skip index 1 is coprime with it), so a new layer plans before it is tuned.
import { helicalHint } from '#engine/plan/helical-hint.ts';
import type { HelicalLayer, WindDefinition } from '#engine/wind/types.ts';
import { JsonNumber, type JsonObject, type JsonValue } from './document.ts';

const float = (value: number) => new JsonNumber(value, null);
const integer = (value: number) => new JsonNumber(value, String(value));

const HELICAL: HelicalLayer = {
  windType: 'helical',
  windAngle: 45,
  patternNumber: 2,
  skipIndex: 1,
  lockDegrees: 180,
  leadInMM: 10,
  leadOutDegrees: 20,
  skipInitialNearLock: false,
};

export type LayerKind = 'hoop' | 'helical' | 'skip' | 'geodesic';

export function newLayer(kind: LayerKind, definition: WindDefinition | null): JsonObject {
  // Everything "auto": the planner chooses circuits, advance, Clairaut radius and dwell for the domes.
  if (kind === 'geodesic') return new Map<string, JsonValue>([['windType', 'geodesic']]);
  if (kind === 'hoop')
    return new Map<string, JsonValue>([
      ['windType', 'hoop'],
      ['terminal', false],
    ]);
  if (kind === 'skip')
    return new Map<string, JsonValue>([
      ['windType', 'skip'],
      ['mandrelRotation', float(90)],
    ]);
  let { patternNumber, leadInMM } = HELICAL;
  if (definition) {
    const { mandrelParameters: mandrel, towParameters: tow } = definition;
    const divisors = helicalHint(HELICAL, mandrel, tow).patternNumbers;
    patternNumber = divisors.find((p) => p > 1) ?? patternNumber;
    // The lead-in must stay shorter than the wind length (check 6).
    leadInMM = Math.min(HELICAL.leadInMM, mandrel.windLength / 10);
  }
  return new Map<string, JsonValue>([
    ['windType', 'helical'],
    ['windAngle', float(HELICAL.windAngle)],
    ['patternNumber', integer(patternNumber)],
    ['skipIndex', integer(HELICAL.skipIndex)],
    ['lockDegrees', float(HELICAL.lockDegrees)],
    ['leadInMM', float(leadInMM)],
    ['leadOutDegrees', float(HELICAL.leadOutDegrees)],
  ]);
}
