import { copyFile, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { runNode } from '../testing/process.ts';
import { towpath } from '../testing/towpath-cli.ts';
import { makeTempDir } from '../testing/workstation.ts';

interface Expected {
  plan?: Record<string, unknown> & { layers: unknown[] };
  simulate?: Record<string, number>;
  error?: { level: 'file' | 'planning'; detail: string };
}

const cases = (await readdir(REFERENCE_ROOT, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function expectedOf(name: string): Promise<Expected> {
  return JSON.parse(await readFile(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8'));
}

/** Runs the CLI in-process, capturing what it prints. */
describe('towpath plan, validate and simulate on every reference case', () => {
  it('covers the reference set', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  for (const name of cases) {
    it(name, async () => {
      const expected = await expectedOf(name);
      const dir = await makeTempDir();
      const input = join(dir, 'input.wind');
      await copyFile(join(REFERENCE_ROOT, name, 'input.wind'), input);

      const validated = await towpath('validate', input, '--json');
      if (expected.plan) {
        expect(validated).toEqual({
          code: 0,
          stdout: `${JSON.stringify({ status: 'ok', path: input })}\n`,
          stderr: '',
        });

        const output = join(dir, 'out-xab.gcode');
        const planned = await towpath('plan', input, '-o', output, '--json');
        expect(planned.stderr).toBe('');
        expect(planned.code).toBe(0);
        expect(JSON.parse(planned.stdout)).toEqual({ ...expected.plan, output });
        const gcode = await readFile(output);
        expect(gcode.equals(await readFile(join(REFERENCE_ROOT, name, 'expected-xab.gcode')))).toBe(true);

        const simulated = await towpath('simulate', output, '--json');
        expect(simulated.code).toBe(0);
        expect(JSON.parse(simulated.stdout)).toEqual(expected.simulate);

        const xyz = join(dir, 'out-xyz.gcode');
        const planXyz = await towpath('plan', input, '-o', xyz, '--axis-format', 'xyz', '--json');
        expect(JSON.parse(planXyz.stdout)).toEqual({ ...expected.plan, output: xyz, axisFormat: 'xyz' });
        const xyzBytes = await readFile(xyz);
        const xyzExpected = await readFile(join(REFERENCE_ROOT, name, 'expected-xyz.gcode')).catch(
          () => undefined,
        );
        if (xyzExpected) expect(xyzBytes.equals(xyzExpected)).toBe(true);
        else
          expect(xyzBytes.toString()).toBe(
            gcode
              .toString()
              .replace(
                /^(G0|G92)( .*)$/gm,
                (_l, c, w) => c + w.replaceAll(' A', ' Y').replaceAll(' B', ' Z'),
              ),
          );
      } else if (expected.error) {
        const detail = expected.error.detail.replaceAll('{path}', input);
        const code = expected.error.level === 'file' ? 2 : 1;
        // The --json body carries the exact detail; stderr gets it as one line.
        const stderr = `towpath: ${detail.replaceAll('\n  ', ': ').replaceAll('\n', '; ')}\n`;
        expect(stderr.split('\n')).toHaveLength(2);
        expect(validated).toEqual({
          code,
          stdout: `${JSON.stringify({ status: 'error', detail })}\n`,
          stderr,
        });
        const planned = await towpath('plan', input, '--json');
        expect(planned).toEqual({
          code,
          stdout: `${JSON.stringify({ detail })}\n`,
          stderr,
        });
        expect(await towpath('validate', input)).toEqual({ code, stdout: '', stderr });
        // A failed plan writes nothing.
        expect(await readdir(dir)).toEqual(['input.wind']);
      }
    });
  }
});

describe('towpath plan', () => {
  it('writes <input>.gcode next to the input by default and prints a short summary', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'vessel.wind');
    await copyFile(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), input);
    const result = await towpath('plan', input);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Planned 1,014 lines in 1 layer\(s\) → .*vessel\.gcode\nTow 31\.90 m, estimated time 3 min 33 s\n$/,
    );
    expect((await stat(join(dir, 'vessel.gcode'))).size).toBe(31430);
  });

  it('replaces an existing output only with a complete program', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'bad.wind');
    await copyFile(join(REFERENCE_ROOT, 'conf_invalid_wind_angle_out_of_range', 'input.wind'), input);
    await writeFile(join(dir, 'bad.gcode'), 'previous\n');
    expect((await towpath('plan', input)).code).toBe(1);
    expect(await readFile(join(dir, 'bad.gcode'), 'utf8')).toBe('previous\n');
  });

  it('refuses to overwrite its input or write over a folder', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'part.wind');
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), input);
    await symlink(input, join(dir, 'alias.gcode'));
    expect(await towpath('plan', input, '-o', join(dir, 'alias.gcode'))).toMatchObject({
      code: 2,
      stderr: `towpath: Output path '${join(dir, 'alias.gcode')}' would overwrite the input file\n`,
    });
    await mkdir(join(dir, 'folder.gcode'));
    expect(await towpath('plan', input, '-o', join(dir, 'folder.gcode'))).toMatchObject({
      code: 2,
      stderr: `towpath: Could not write G-code to ${join(dir, 'folder.gcode')}: not a regular file\n`,
    });
  });

  it('explains wrong arguments with the usage line and exit 2', async () => {
    for (const argv of [
      ['plan'],
      ['plan', 'a.wind', 'b.wind'],
      ['plan', 'a.wind', '--axis-format', 'abc'],
      ['plan', 'a.wind', '--fast'],
      ['simulate'],
      ['validate', '--json'],
    ]) {
      const result = await towpath(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(/^towpath \w+: .+\nUsage: towpath \w+ /);
    }
  });

  it('prints a schema report with several errors as one line on stderr and in full with --json', async () => {
    const dir = await makeTempDir();
    const input = join(dir, 'bad.wind');
    await writeFile(
      input,
      '{"layers":[{"windType":"skip"}],"mandrelParameters":[],"towParameters":{"width":7}}',
    );
    const detail = [
      `Wind definition at ${input} failed validation: 4 validation errors for WindDefinition`,
      'layers.0.skip.mandrelRotation',
      '  Field required [type=missing]',
      'mandrelParameters',
      '  Input should be a valid dictionary or instance of MandrelParameters [type=model_type]',
      'towParameters.thickness',
      '  Field required [type=missing]',
      'defaultFeedRate',
      '  Field required [type=missing]',
    ].join('\n');
    expect(await towpath('plan', input, '--json')).toEqual({
      code: 2,
      stdout: `${JSON.stringify({ detail })}\n`,
      stderr:
        `towpath: Wind definition at ${input} failed validation: 4 validation errors for WindDefinition; ` +
        'layers.0.skip.mandrelRotation: Field required [type=missing]; ' +
        'mandrelParameters: Input should be a valid dictionary or instance of MandrelParameters [type=model_type]; ' +
        'towParameters.thickness: Field required [type=missing]; defaultFeedRate: Field required [type=missing]\n',
    });
    await writeFile(input, '7');
    expect(await towpath('validate', input)).toEqual({
      code: 2,
      stdout: '',
      stderr: `towpath: Wind definition at ${input} failed validation: 1 validation error for WindDefinition: Input should be a valid dictionary or instance of WindDefinition [type=model_type]\n`,
    });
  });

  it('reports a missing input as a file error', async () => {
    const result = await towpath('plan', '/nonexistent/part.wind', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      detail: 'No wind definition found at /nonexistent/part.wind',
    });
  });
});

describe('towpath simulate', () => {
  it('reports a missing file as a file error and bad G-code as a simulation error with its line', async () => {
    expect(await towpath('simulate', '/nonexistent/x.gcode')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'towpath: No file found at /nonexistent/x.gcode\n',
    });
    const dir = await makeTempDir();
    const file = join(dir, 'bad.gcode');
    await writeFile(file, '; Parameters {"mandrel":{"diameter":70,"windLength":500}}\nG0 F9000\nT1\n');
    expect(await towpath('simulate', file, '--json')).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ detail: "Line 3: unsupported command 'T1'" })}\n`,
      stderr: "towpath: Line 3: unsupported command 'T1'\n",
    });
    await writeFile(file, Buffer.from([0x3b, 0x20, 0xff, 0x0a]));
    expect(await towpath('simulate', file)).toMatchObject({
      code: 2,
      stderr: `towpath: Could not read G-code at ${file}: not valid UTF-8 (byte 2)\n`,
    });
  });
});

describe('the towpath process', () => {
  it('plans a reference case exactly as the README says, with no progress bar when piped', async () => {
    const dir = await makeTempDir();
    const output = join(dir, 'out.gcode');
    const input = join(REFERENCE_ROOT, 'conf_valid_helical', 'input.wind');
    const result = await runNode('server/cli.ts', ['plan', input, '-o', output, '--json']);
    const expected = await expectedOf('conf_valid_helical');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ ...expected.plan, output });
    expect(
      (await readFile(output)).equals(
        await readFile(join(REFERENCE_ROOT, 'conf_valid_helical', 'expected-xab.gcode')),
      ),
    ).toBe(true);
  });
});
