// `npm run bench`: one JSON line per figure ({name, unit, value, reference}), comparable run to run.
// `reference` is the figure a benchmark is compared with (a target, or the reference
// implementation's figure), or null where there is none. Each module under scripts/bench/ exports
// a `bench`; they run one after another so they do not compete for the two cores.
import { readdir } from 'node:fs/promises';
import type { Bench, Report } from './bench/report.ts';

const report: Report = (name, unit, value, reference) => {
  console.log(JSON.stringify({ name, unit, value: Number(value.toPrecision(6)), reference }));
};

const only = process.argv.slice(2);
const dir = new URL('./bench/', import.meta.url);
const modules = (await readdir(dir))
  .filter(
    (file) =>
      file.endsWith('.ts') && file !== 'report.ts' && !file.endsWith('.test.ts') && !file.includes('-child'),
  )
  .sort();

for (const file of modules) {
  const name = file.replace(/\.ts$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  const { bench } = (await import(new URL(file, dir).href)) as { bench?: Bench };
  if (typeof bench === 'function') await bench(report);
}
