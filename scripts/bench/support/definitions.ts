// The winding definitions the benchmarks plan: the planner suite measures them, and the start-up,
// hygiene and machine suites use the first as a job long enough to be caught in the middle.
import type { WindDefinition } from '../../../engine/wind/types.ts';
import { helicalLayer } from '../../../server/testing/wind.ts';

/** 26 circuits × 2 passes × ~7000 lines per helical layer: about 1.09 million lines in all. */
export const benchDefinition: WindDefinition = {
  schemaVersion: '1.0',
  mandrelParameters: {
    diameter: 70,
    windLength: 7000,
    endDiameter: null,
    domes: null,
    meridianSegments: 4096,
  },
  towParameters: { width: 7, thickness: 0.5 },
  defaultFeedRate: 9000,
  machine: null,
  layers: [
    helicalLayer(35, 180),
    { windType: 'hoop', terminal: false },
    helicalLayer(35, 360),
    helicalLayer(30, 180),
  ],
};

/** Three helical layers on a 7 m cone reducing from 70 to 40 mm: about 2.35 million lines. */
export const coneBenchDefinition: WindDefinition = {
  ...benchDefinition,
  schemaVersion: '1.1',
  mandrelParameters: { diameter: 70, windLength: 7000, endDiameter: 40, domes: null, meridianSegments: 4096 },
  layers: [helicalLayer(30, 180), helicalLayer(30, 360), helicalLayer(30, 180)],
};

/** The Python reference planner's throughput on this benchmark, as measured when it was written. */
export const REFERENCE_PLANNER_LINES_PER_S = 77_000;
