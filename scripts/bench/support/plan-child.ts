// Child process of the plan benchmark (suites/plan.ts): plans one definition to a file with a plain
// synchronous write loop and prints {lines, bytes, seconds, maxRssMB} as JSON. A fresh process so
// that the peak RSS belongs to this job alone.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { planChunks } from '../../../engine/plan/index.ts';
import type { WindDefinition } from '../../../engine/wind/types.ts';

const [definitionJson, outputPath] = process.argv.slice(2);
if (definitionJson === undefined || outputPath === undefined) {
  throw new Error('usage: plan-child.ts <definition JSON> <output path>');
}
const definition = JSON.parse(definitionJson) as WindDefinition;

const fd = openSync(outputPath, 'w');
const started = performance.now();
let bytes = 0;
const chunks = planChunks(definition);
let step = chunks.next();
while (!step.done) {
  const chunk = step.value;
  let written = 0;
  while (written < chunk.length) written += writeSync(fd, chunk, written, chunk.length - written);
  bytes += chunk.length;
  step = chunks.next();
}
const seconds = (performance.now() - started) / 1000;
closeSync(fd);

console.log(
  JSON.stringify({
    lines: step.value.commands,
    bytes,
    seconds,
    maxRssMB: peakRssKiB() / 1024,
  }),
);

/**
 * Peak resident memory of this process. On Linux getrusage's maxrss survives exec, so a child
 * forked from a large parent (the bench runner after other benchmarks) would report the parent's
 * size; VmHWM belongs to this process image alone.
 */
function peakRssKiB(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) return Number(match[1]);
  } catch {
    // not Linux: fall through
  }
  return process.resourceUsage().maxRSS;
}
