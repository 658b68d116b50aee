// The planner: a definition of about a million lines, and a reducing cone whose passes compute the
// geodesic station by station, each planned to a file in a fresh child process (throughput, peak
// RSS). Targets: scripts/bench/README.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WindDefinition } from '../../../engine/wind/types.ts';
import { benchDefinition, coneBenchDefinition } from '../support/definitions.ts';
import type { Bench } from '../support/report.ts';

interface ChildResult {
  lines: number;
  bytes: number;
  seconds: number;
  maxRssMB: number;
}

/** Best of three child runs for throughput (the machine is shared); peak RSS is the worst of them. */
function planInChild(definition: WindDefinition, output: string): { best: ChildResult; peak: number } {
  const child = new URL('../support/plan-child.ts', import.meta.url).pathname;
  let best: ChildResult | null = null;
  let peak = 0;
  for (let run = 0; run < 3; run++) {
    const out = execFileSync(process.execPath, [child, JSON.stringify(definition), output], {
      encoding: 'utf8',
    });
    const result = JSON.parse(out) as ChildResult;
    if (best === null || result.seconds < best.seconds) best = result;
    peak = Math.max(peak, result.maxRssMB);
  }
  if (best === null) throw new Error('no planner run');
  return { best, peak };
}

export const bench: Bench = async (report) => {
  const dir = mkdtempSync(join(tmpdir(), 'towpath-bench-plan-'));
  try {
    const cylinder = planInChild(benchDefinition, join(dir, 'bench.gcode'));
    report('plan.throughput', 'lines/s', cylinder.best.lines / cylinder.best.seconds, 2_000_000);
    report('plan.peak_rss', 'MB', cylinder.peak, 120);
    const cone = planInChild(coneBenchDefinition, join(dir, 'cone.gcode'));
    report('plan.cone_throughput', 'lines/s', cone.best.lines / cone.best.seconds, 2_000_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
