// `npm run bench`: one JSON line per figure ({name, unit, value, reference}), comparable run to run.
// `reference` is the figure a benchmark is compared with (a target, or the reference
// implementation's figure), or null where there is none. `npm run bench -- <suite> …` runs only the
// suites named. scripts/bench/README.md lists every figure with its unit, target and method.
import type { Bench, Report } from './bench/support/report.ts';

/**
 * Every suite under scripts/bench/suites/, in the order they run: one after another, so they do
 * not compete for the cores. A suite is listed here by name, so one that is renamed or loses its
 * `bench` export fails the run instead of being skipped.
 */
export const SUITES = [
  'bridge',
  'core',
  'dashboards-live',
  'dashboards-ui',
  'dashboards',
  'datasource-security',
  'design-keystroke',
  'fleet',
  'gateway',
  'gcode',
  'graphql-hostile',
  'graphql',
  'hygiene',
  'machine',
  'opcua',
  'password-reset',
  'plan',
  'startup',
  'stream-stop',
  'vessel',
  'winding-ui',
  'winding',
] as const;

/** The suite's `bench`, loaded without running it. */
export async function loadSuite(name: string): Promise<Bench> {
  const { bench } = (await import(new URL(`./bench/suites/${name}.ts`, import.meta.url).href)) as {
    bench?: unknown;
  };
  if (typeof bench !== 'function') throw new Error(`scripts/bench/suites/${name}.ts exports no bench`);
  return bench as Bench;
}

const report: Report = (name, unit, value, reference) => {
  console.log(JSON.stringify({ name, unit, value: Number(value.toPrecision(6)), reference }));
};

if (import.meta.main) {
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !(SUITES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    process.stderr.write(`bench: no suite named ${unknown.join(', ')} (suites: ${SUITES.join(', ')})\n`);
    process.exit(2);
  }
  for (const name of SUITES) {
    if (only.length > 0 && !only.includes(name)) continue;
    await (await loadSuite(name))(report);
  }
}
