// The validated `.wind` definition (spec/winding.md §2.3) as the planner receives it: camelCase
// keys, coerced values, defaults applied. The zod schema in this folder must produce exactly this.

export type WindType = 'hoop' | 'helical' | 'skip';

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

export type Layer = HoopLayer | HelicalLayer | SkipLayer;

export interface MandrelParameters {
  diameter: number;
  windLength: number;
  endDiameter: number | null;
}

export interface TowParameters {
  width: number;
  thickness: number;
}

export interface WindDefinition {
  schemaVersion: string;
  layers: Layer[];
  mandrelParameters: MandrelParameters;
  towParameters: TowParameters;
  defaultFeedRate: number;
}
