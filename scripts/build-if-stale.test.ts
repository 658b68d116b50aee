// `npm start`'s build step on a real folder: a part is built once, then not again until one of its
// inputs or outputs changes. The build itself is a function writing the output, not vite or esbuild.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../server/testing/workstation.ts';
import { BUILD_STEPS, type BuildStep, buildIfStale } from './build-if-stale.ts';

const STEP: BuildStep = {
  name: 'part',
  label: 'the part',
  inputs: ['src', 'lock.json', 'build.ts'],
  outputs: ['dist/part/out.js'],
  script: 'build:part',
};

/** No stamp, and an output from before the sources were last saved. */
async function removeStampAgeOutput(root: string) {
  await rm(join(root, 'dist', 'stamps', 'part.mjs'));
  await utimes(join(root, 'dist', 'part', 'out.js'), 1, 1);
}

async function project() {
  const root = await makeTempDir();
  await mkdir(join(root, 'src', 'nested'), { recursive: true });
  await writeFile(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(root, 'src', 'nested', 'b.ts'), 'export const b = 2;\n');
  await writeFile(join(root, 'src', 'a.test.ts'), 'test\n');
  await writeFile(join(root, 'lock.json'), '{}\n');
  const builds: string[] = [];
  const said: string[] = [];
  const build = () =>
    buildIfStale(
      root,
      STEP,
      (step) => {
        builds.push(step.script);
        // What a real build does: reads its sources, writes its output.
        const text = readFileSync(join(root, 'src', 'a.ts'), 'utf8');
        mkdirSync(join(root, 'dist', 'part'), { recursive: true });
        writeFileSync(join(root, 'dist', 'part', 'out.js'), text);
      },
      (line) => said.push(line),
    );
  return { root, builds, said, build };
}

describe('buildIfStale', () => {
  it('builds once, then a second start with nothing changed builds nothing', async () => {
    const { root, builds, said, build } = await project();
    expect(await build()).toBe(true);
    expect(said).toEqual(['Building the part (dist/part/out.js is missing)…']);
    expect(existsSync(join(root, 'dist', 'stamps', 'part.mjs'))).toBe(true);
    expect(await build()).toBe(false);
    expect(await build()).toBe(false);
    expect(builds).toEqual(['build:part']);
    expect(said).toHaveLength(1);
  });

  it('builds again when an input changes, appears or goes, or an output is gone; not for a test file', async () => {
    const { root, builds, said, build } = await project();
    await build();
    const rebuilds: [string, () => Promise<unknown>, boolean][] = [
      [
        'a source edited',
        () => writeFile(join(root, 'src', 'nested', 'b.ts'), 'export const b = 22;\n'),
        true,
      ],
      ['a test edited', () => writeFile(join(root, 'src', 'a.test.ts'), 'another test\n'), false],
      ['a test added', () => writeFile(join(root, 'src', 'c.test.ts'), 'test\n'), false],
      ['a source added', () => writeFile(join(root, 'src', 'nested', 'c.ts'), 'export {};\n'), true],
      ['a source removed', () => rm(join(root, 'src', 'nested', 'c.ts')), true],
      ['the build script created', () => writeFile(join(root, 'build.ts'), '// build\n'), true],
      ['the lockfile edited', () => writeFile(join(root, 'lock.json'), '{ "v": 2 }\n'), true],
      ['the output removed', () => rm(join(root, 'dist', 'part', 'out.js')), true],
      ['the stamp removed, the output older than an input', () => removeStampAgeOutput(root), true],
      ['a file outside the inputs', () => writeFile(join(root, 'README.md'), 'hello\n'), false],
    ];
    for (const [change, make, expected] of rebuilds) {
      await make();
      expect(await build(), change).toBe(expected);
      expect(await build(), `${change}, then nothing`).toBe(false);
    }
    expect(builds).toHaveLength(1 + rebuilds.filter(([, , built]) => built).length);
    expect(said.slice(1)).toEqual([
      'Building the part (src/nested/b.ts changed)…',
      'Building the part (src/nested/c.ts is new)…',
      'Building the part (src/nested/c.ts is gone)…',
      'Building the part (build.ts is new)…',
      'Building the part (lock.json changed)…',
      'Building the part (dist/part/out.js is missing)…',
      'Building the part (it has not been built here)…',
    ]);
  });

  it('takes outputs newer than every input, built without a stamp (npm ci, npm run build), as fresh', async () => {
    const { root, builds, build } = await project();
    await mkdir(join(root, 'dist', 'part'), { recursive: true });
    await writeFile(join(root, 'dist', 'part', 'out.js'), 'built by npm run build\n');
    // Written after the sources; a second later, past the file system's clock granularity.
    const later = Date.now() / 1000 + 1;
    await utimes(join(root, 'dist', 'part', 'out.js'), later, later);
    expect(await build()).toBe(false);
    expect(existsSync(join(root, 'dist', 'stamps', 'part.mjs'))).toBe(true);
    await writeFile(join(root, 'src', 'a.ts'), 'export const a = 10;\n');
    expect(await build()).toBe(true);
    expect(builds).toEqual(['build:part']);
    // An output older than an input, and no stamp: built.
    const old = await project();
    await mkdir(join(old.root, 'dist', 'part'), { recursive: true });
    await writeFile(join(old.root, 'dist', 'part', 'out.js'), 'old\n');
    await utimes(join(old.root, 'dist', 'part', 'out.js'), 1, 1);
    expect(await old.build()).toBe(true);
    expect(old.said).toEqual(['Building the part (it has not been built here)…']);
  });

  it('leaves no stamp when the build fails, so the next start tries again', async () => {
    const { root, build } = await project();
    const failing = buildIfStale(root, STEP, () => {
      throw new Error('npm run build:part failed (exit code 1)');
    });
    await expect(failing).rejects.toThrow('npm run build:part failed');
    expect(existsSync(join(root, 'dist', 'stamps', 'part.mjs'))).toBe(false);
    expect(await build()).toBe(true);
  });
});

describe('BUILD_STEPS', () => {
  it('are the parts of `npm run build`, in its order', async () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const parts = [...(scripts.build as string).matchAll(/npm run (\S+)/g)].map((match) => match[1]);
    expect(BUILD_STEPS.map((step) => step.script)).toEqual(parts);
    for (const step of BUILD_STEPS) expect(scripts[step.script], step.script).toBeTypeOf('string');
  });
});
