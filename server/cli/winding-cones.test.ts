// Cones through the command line: the engine's cone planning reaches `towpath plan` and
// `towpath validate` unchanged, and validate refuses exactly what plan refuses. The word-for-word
// comparison of every reference cone lives with the planner (engine/plan/cone-reference.test.ts).
import { execFileSync } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONE_REFERENCE_ROOT } from '../../reference/paths.ts';
import { expectRefusedByPlanAndValidate, towpath } from '../testing/towpath-cli.ts';
import { makeTempDir } from '../testing/workstation.ts';

async function copyCase(name: string): Promise<{ dir: string; input: string }> {
  const dir = await makeTempDir();
  const input = join(dir, 'input.wind');
  await copyFile(join(CONE_REFERENCE_ROOT, name, 'input.wind'), input);
  return { dir, input };
}

describe('towpath plan and validate on cones', () => {
  it('conf_valid_cone: validates, and plans the reference body byte for byte with its layer counts', async () => {
    const expected = JSON.parse(
      await readFile(join(CONE_REFERENCE_ROOT, 'conf_valid_cone', 'expected.json'), 'utf8'),
    );
    const { dir, input } = await copyCase('conf_valid_cone');
    expect(await towpath('validate', input, '--json')).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ status: 'ok', path: input })}\n`,
      stderr: '',
    });
    const output = join(dir, 'cone.gcode');
    const planned = await towpath('plan', input, '-o', output, '--json');
    expect(planned.code).toBe(0);
    const summary = JSON.parse(planned.stdout);
    expect(summary.layers.map((layer: { commands: number }) => layer.commands)).toEqual(
      expected.plan.layers.map((layer: { commands: number }) => layer.commands),
    );
    expect(summary.towMeters).toBeCloseTo(expected.plan.towMeters, 9);

    const reference = execFileSync('xz', [
      '--decompress',
      '--stdout',
      join(CONE_REFERENCE_ROOT, 'conf_valid_cone', expected.output.file),
    ]).toString('latin1');
    // The reference writes four header lines before `G0 X0 A0 B0`, this planner one.
    const body = (gcode: string) => gcode.slice(gcode.indexOf('\nG0 X0 A0 B0\n'));
    expect(body(await readFile(output, 'latin1')) === body(reference)).toBe(true);
  });

  for (const name of [
    'conf_invalid_expanding_cone',
    'conf_invalid_hoop_on_cone',
    'conf_invalid_unreachable_cone_angle',
    'sweep_invalid_hoop_on_cone_layer2',
  ]) {
    it(`${name}: plan and validate both refuse it with the planning exit code and message`, async () => {
      const { detail } = JSON.parse(
        await readFile(join(CONE_REFERENCE_ROOT, name, 'expected.json'), 'utf8'),
      ).error;
      const { input } = await copyCase(name);
      await expectRefusedByPlanAndValidate(input, detail);
    });
  }
});
