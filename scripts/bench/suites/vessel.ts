// The vessel planner: a vessel of ten geodesic layers planned to a file in a fresh child process,
// beside the cylinder planner's definition planned the same way in the same run (lines/s), and the
// time the analysis along the part takes per layer (angle, thickness, coverage: what every plan of a
// vessel now computes). Targets: scripts/bench/README.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analysePlan, layerProfile } from '../../../engine/plan/analysis.ts';
import { geodesicKinematics, vesselOf } from '../../../engine/plan/vessel.ts';
import { GeodesicLayerSchema } from '../../../engine/wind/schema.ts';
import type { WindDefinition } from '../../../engine/wind/types.ts';
import { benchDefinition } from '../support/definitions.ts';
import { type Bench, reportTimes } from '../support/report.ts';

/** Two hemispheres on a 150 × 300 mm cylinder; ten geodesic layers from the opening outward. */
export const vesselBenchDefinition: WindDefinition = {
  schemaVersion: '1.1',
  mandrelParameters: {
    diameter: 150,
    windLength: 300,
    endDiameter: null,
    domes: {
      both: { type: 'hemispherical', polarOpeningDiameter: 40, aspect: null, points: null },
      start: null,
      end: null,
    },
    meridianSegments: 4096,
  },
  towParameters: { width: 6, thickness: 0.3 },
  defaultFeedRate: 6000,
  machine: null,
  layers: Array.from({ length: 10 }, (_, i) =>
    GeodesicLayerSchema.parse({ windType: 'geodesic', clairautRadius: i === 0 ? 'auto' : 23 + 3 * i }),
  ),
};

interface ChildResult {
  lines: number;
  seconds: number;
}

/** Best of three child runs (the machine is shared). */
function planInChild(definition: WindDefinition, output: string): ChildResult {
  const child = new URL('../support/plan-child.ts', import.meta.url).pathname;
  let best: ChildResult | null = null;
  for (let run = 0; run < 3; run++) {
    const out = execFileSync(process.execPath, [child, JSON.stringify(definition), output], {
      encoding: 'utf8',
    });
    const result = JSON.parse(out) as ChildResult;
    if (best === null || result.seconds < best.seconds) best = result;
  }
  if (best === null) throw new Error('no planner run');
  return best;
}

export const bench: Bench = async (report) => {
  const dir = mkdtempSync(join(tmpdir(), 'towpath-bench-vessel-'));
  try {
    const vessel = planInChild(vesselBenchDefinition, join(dir, 'vessel.gcode'));
    report('vessel.plan_throughput', 'lines/s', vessel.lines / vessel.seconds, null);
    report('vessel.plan_lines', 'lines', vessel.lines, null);
    const cylinder = planInChild(benchDefinition, join(dir, 'cylinder.gcode'));
    report('vessel.cylinder_plan_throughput', 'lines/s', cylinder.lines / cylinder.seconds, null);
    report(
      'vessel.throughput_ratio',
      'ratio',
      vessel.lines / vessel.seconds / (cylinder.lines / cylinder.seconds),
      null,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The analysis per layer, from the kinematics the checks found (as the planner does).
  const { mandrelParameters: mandrel, towParameters: tow, layers } = vesselBenchDefinition;
  const shape = vesselOf(mandrel, tow);
  if (shape === null) throw new Error('the bench vessel has no vessel');
  const profiles = layers.map((layer) => {
    if (layer.windType !== 'geodesic') throw new Error('the bench vessel winds geodesic layers only');
    const k = geodesicKinematics(layer, mandrel, tow);
    if (typeof k === 'string') throw new Error(k);
    return layerProfile(layer, k, mandrel, tow);
  });
  const times: number[] = [];
  for (let run = 0; run < 30; run++) {
    const started = performance.now();
    analysePlan(vesselBenchDefinition, shape, profiles);
    times.push((performance.now() - started) / layers.length);
  }
  reportTimes(report, 'vessel.analysis_per_layer', times, 5);
};
