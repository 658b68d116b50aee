// Simulator result (spec/winding.md §5). Field names are the wire names.

export interface SimulationSummary {
  commands: number;
  moves: number;
  estimated_time_s: number;
  total_distance_mm: number;
  tow_length_mm: number;
  average_feed_rate_mmpm: number;
}
