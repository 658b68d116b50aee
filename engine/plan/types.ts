// Planner options and results (spec/winding.md §4.7, §7.1). Field names are the wire names.
import type { WindType } from '../wind/types.ts';
import type { PlanAnalysis } from './analysis.ts';

export type AxisFormat = 'xab' | 'xyz';

export interface PlanOptions {
  axisFormat?: AxisFormat;
  verbose?: boolean;
}

export interface LayerMetrics {
  index: number;
  wind_type: WindType;
  commands: number;
  time_s: number;
  cumulative_time_s: number;
  tow_m: number;
  cumulative_tow_m: number;
  terminal: boolean;
}

export interface PlanSummary {
  commands: number;
  timeSeconds: number;
  towMeters: number;
  axisFormat: AxisFormat;
  layers: LayerMetrics[];
  /** Angle, thickness and coverage along the part: vessels only (docs/winding-vessels.md). */
  analysis?: PlanAnalysis;
}
