// The G-code simulator and preview over the planner's reference outputs (hoop and helical layers,
// both axis styles) concatenated past 10 MB; only the first Parameters header counts, the others
// are comments. Fed in 64 KiB chunks, as a file read delivers it. Targets: scripts/bench/README.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GcodeSimulator, PreviewBuilder } from '../../../engine/gcode/index.ts';
import { REFERENCE_ROOT } from '../../../reference/paths.ts';
import type { Bench } from '../support/report.ts';

const CASES = ['multi_layer', 'avbay_single', 'conf_valid_multilayer', 'sized_simple_cylinder'];
const TARGET_BYTES = 10 * 1024 * 1024;
const CHUNK = 64 * 1024;
const RUNS = 5;

function benchProgram(): Uint8Array {
  const parts = CASES.map((name) => readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode')));
  const pieces: Uint8Array[] = [];
  let total = 0;
  while (total < TARGET_BYTES) {
    for (const part of parts) {
      pieces.push(part);
      total += part.length;
    }
  }
  return Buffer.concat(pieces, total);
}

function feed(program: Uint8Array, sink: { push(chunk: Uint8Array): void }): void {
  for (let i = 0; i < program.length; i += CHUNK) sink.push(program.subarray(i, i + CHUNK));
}

export const bench: Bench = async (report) => {
  const program = benchProgram();
  // Best of several runs: the machine is shared, and the first runs include JIT warm-up.
  let simulateSeconds = Number.POSITIVE_INFINITY;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const simulator = new GcodeSimulator();
    feed(program, simulator);
    simulator.finish();
    simulateSeconds = Math.min(simulateSeconds, (performance.now() - start) / 1000);
  }
  report('simulate.throughput', 'MB/s', program.length / 1e6 / simulateSeconds, 50);

  let previewRate = 0;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const builder = new PreviewBuilder();
    feed(program, builder);
    const geometry = builder.finish();
    previewRate = Math.max(previewRate, geometry.vertexCount / ((performance.now() - start) / 1000));
  }
  report('preview.throughput', 'vertices/s', previewRate, 2_000_000);
};
