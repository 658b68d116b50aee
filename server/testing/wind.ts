// Test support: long `.wind` definitions, for runs that must be caught in the middle.
import type { HelicalLayer } from '../../engine/wind/types.ts';

/** A helical layer that plans thousands of lines per metre of mandrel. */
export const helicalLayer = (windAngle: number, lockDegrees = 180): HelicalLayer => ({
  windType: 'helical',
  windAngle,
  patternNumber: 2,
  skipIndex: 1,
  lockDegrees,
  leadInMM: 25,
  leadOutDegrees: 15,
  skipInitialNearLock: false,
});

/** A definition of helical layers at `angles` on a 70 mm mandrel `windLength` mm long. */
export const longDefinition = (windLength: number, angles: number[]) => ({
  schemaVersion: '1.0',
  mandrelParameters: { diameter: 70, windLength },
  towParameters: { width: 7, thickness: 0.5 },
  defaultFeedRate: 9000,
  layers: angles.map((angle) => helicalLayer(angle)),
});
