// Vessels through the command line: the shipped vessel example validates and plans with `towpath`,
// its geodesic layer reaching the G-code, and a vessel the planner cannot wind is refused by
// validate exactly as by plan. The geometry checks of the path live with the planner
// (engine/plan/vessel.test.ts).
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectRefusedByPlanAndValidate, towpath } from '../testing/towpath-cli.ts';
import { makeTempDir } from '../testing/workstation.ts';

const EXAMPLE = new URL('../../resources/examples/vessel.wind', import.meta.url).pathname;

describe('towpath plan and validate on a vessel', () => {
  it('the vessel example validates and plans, its geodesic layer circuit by circuit', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'vessel.wind');
    await copyFile(EXAMPLE, input);
    expect(await towpath('validate', input, '--json')).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ status: 'ok', path: input })}\n`,
      stderr: '',
    });
    const output = join(dir, 'vessel.gcode');
    const planned = await towpath('plan', input, '-o', output, '--json');
    expect(planned.code).toBe(0);
    const summary = JSON.parse(planned.stdout);
    expect(summary.layers.map((layer: { wind_type: string }) => layer.wind_type)).toEqual([
      'hoop',
      'geodesic',
      'hoop',
    ]);
    const gcode = await readFile(output, 'latin1');
    const lines = gcode.split('\n');
    expect(lines.length - 1).toBe(summary.commands);
    const circuits = lines.filter((line) => line.startsWith('; \tCircuit: ')).length;
    expect(circuits).toBeGreaterThan(0);
    expect(lines).toContain(`; \tCircuit: ${circuits}/${circuits}`);
    // The domes lie outside the cylinder's 0…windLength: the carriage goes there.
    const xs = lines.flatMap((line) => /^G0 X(\S+) /.exec(line)?.[1] ?? []).map(Number);
    expect(Math.min(...xs)).toBeLessThan(-50);
    expect(Math.max(...xs)).toBeGreaterThan(300 + 50);
    const geodesic = summary.layers[1];
    expect(geodesic.tow_m).toBeGreaterThan(0);
    expect(geodesic.time_s).toBeGreaterThan(0);
    // What the engineer reads: the analysis along the part, one entry per layer.
    expect(Object.keys(summary)).toEqual([
      'commands',
      'output',
      'timeSeconds',
      'towMeters',
      'axisFormat',
      'layers',
      'analysis',
    ]);
    expect(summary.analysis.z_mm).toHaveLength(summary.analysis.radius_mm.length);
    expect(summary.analysis.layers.map((layer: { wind_type: string }) => layer.wind_type)).toEqual([
      'hoop',
      'geodesic',
      'hoop',
    ]);
    expect(summary.analysis.layers[1].coverage.slots).toBe(circuits);
  });

  it('a carriage too short for the domes: validate and plan refuse it alike, naming the layer', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'input.wind');
    const definition = JSON.parse(await readFile(EXAMPLE, 'utf8'));
    definition.machine.carriageMax = 350;
    await writeFile(input, JSON.stringify(definition));
    await expectRefusedByPlanAndValidate(
      input,
      'Layer 2: the carriage would travel to X 350.536 mm, beyond carriageMax 350.0 mm',
    );
  });

  it('a vessel whose opening is too large for the band: validate and plan refuse it alike', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'input.wind');
    const definition = JSON.parse(await readFile(EXAMPLE, 'utf8'));
    definition.mandrelParameters.domes.both.polarOpeningDiameter = 146;
    await writeFile(input, JSON.stringify(definition));
    const detail =
      "Layer 2: the polar opening (diameter 146.0 mm) is too large for the 6.0 mm band: the band's inner edge needs a Clairaut radius of 76 mm, which is not below the cylinder radius 75.0 mm, so no fibre angle on the cylinder reaches it";
    await expectRefusedByPlanAndValidate(input, detail);
  });

  it('a vessel definition that declares schemaVersion 1.0 is a schema error', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'old.wind');
    const definition = JSON.parse(await readFile(EXAMPLE, 'utf8'));
    definition.schemaVersion = '1.0';
    await writeFile(input, JSON.stringify(definition));
    const result = await towpath('validate', input);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('vessels need schemaVersion "1.1" or later (got "1.0")');
  });
});
