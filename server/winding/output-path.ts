import { basename, dirname, join } from 'node:path';

/**
 * Where a plan of `input` is written (spec/winding.md §7.3): the same folder, the last component's
 * extension replaced by `.gcode`. An extension starts at the last `.` that is neither the first nor
 * the last character of the name, so `.wind` and `part.` keep their whole name.
 */
export function defaultOutputPath(input: string): string {
  const name = basename(input);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 && dot < name.length - 1 ? name.slice(0, dot) : name;
  return join(dirname(input), `${stem}.gcode`);
}
