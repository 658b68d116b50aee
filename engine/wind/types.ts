// The validated `.wind` definition (spec/winding.md §2.3) as the planner receives it: camelCase
// keys, coerced values, defaults applied. The zod schema in this folder must produce exactly this.

export type WindType = 'hoop' | 'helical' | 'skip' | 'geodesic';

export interface HoopLayer {
  windType: 'hoop';
  terminal: boolean;
}

export interface HelicalLayer {
  windType: 'helical';
  windAngle: number;
  patternNumber: number;
  skipIndex: number;
  lockDegrees: number;
  leadInMM: number;
  leadOutDegrees: number;
  skipInitialNearLock: boolean;
}

export interface SkipLayer {
  windType: 'skip';
  mandrelRotation: number;
}

/** A number the planner may choose itself. */
export type OrAuto = number | 'auto';

export interface GeodesicLayer {
  windType: 'geodesic';
  circuits: OrAuto;
  patternAdvance: OrAuto;
  clairautRadius: OrAuto;
  poleDwellDegrees: OrAuto;
  stationSpacingMM: number;
}

export type Layer = HoopLayer | HelicalLayer | SkipLayer | GeodesicLayer;

export type DomeType = 'hemispherical' | 'ellipsoidal' | 'isotensoid' | 'profile';

export interface Dome {
  type: DomeType;
  polarOpeningDiameter: number;
  aspect: number | null;
  points: [number, number][] | null;
}

export interface Domes {
  both: Dome | null;
  start: Dome | null;
  end: Dome | null;
}

export interface MandrelParameters {
  diameter: number;
  windLength: number;
  endDiameter: number | null;
  domes: Domes | null;
  meridianSegments: number;
}

export interface TowParameters {
  width: number;
  thickness: number;
}

/** The machine the definition is wound on (Towpath, docs/winding-vessels.md). */
export interface Machine {
  eyeRadius: number | null;
  carriageMin: number | null;
  carriageMax: number | null;
  eyeClearance: number;
}

export interface WindDefinition {
  schemaVersion: string;
  layers: Layer[];
  mandrelParameters: MandrelParameters;
  towParameters: TowParameters;
  defaultFeedRate: number;
  machine: Machine | null;
}
