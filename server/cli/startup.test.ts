// Start-up of the `towpath` command: each command loads only what it uses, so a short one starts fast,
// and a prebuilt bundle of the winding commands is used only while its sources are unchanged.
import { statSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freshnessHeader, loadFreshBundle } from '../../bridge/fresh-bundle.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { recordingIo } from '../testing/cli-io.ts';
import { REPO_ROOT, runNode } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';

const TRACER = pathToFileURL(join(REPO_ROOT, 'server', 'testing', 'trace-modules.ts')).href;

/** Runs `towpath …` as a process and returns its exit code and the modules it loaded (repo-relative). */
async function loadedBy(...argv: string[]) {
  return loadedByScript('bin/towpath.mjs', ...argv);
}

async function loadedByScript(script: string, ...argv: string[]) {
  const trace = join(await makeTempDir(), 'modules.txt');
  const result = await runNode(script, argv, {
    NODE_OPTIONS: `--import=${TRACER}`,
    TOWPATH_TRACE_MODULES: trace,
    // Never the developer's own data dir (a running workstation there would take the e-stop).
    TOWPATH_DATA_DIR: join(await makeTempDir(), 'data'),
  });
  const root = pathToFileURL(REPO_ROOT).href;
  const modules = (await readFile(trace, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:') && !url.includes('/server/testing/trace-modules.ts'))
    .map((url) => (url.startsWith(root) ? url.slice(root.length) : url));
  return { ...result, modules };
}

const SERVER_ONLY =
  /node_modules\/(fastify|@fastify|better-sqlite3|drizzle-orm|graphql|graphql-yoga|serialport|@serialport|pino|@node-rs|@modelcontextprotocol|ws|mqtt)\//;

describe('towpath start-up', () => {
  it('--help loads nothing but the command table and the version', async () => {
    const { code, stdout, modules } = await loadedBy('--help');
    expect(code).toBe(0);
    expect(stdout).toContain('Commands:');
    // The table's bundle while it is fresh, else its sources (entry-points.test.ts sees both).
    expect(modules.sort()).toEqual(
      modules.includes('dist/cli/towpath.mjs')
        ? ['bin/towpath.mjs', 'dist/cli/towpath.mjs']
        : [
            'bin/towpath.mjs',
            'bridge/fresh-bundle.ts',
            'bridge/version.ts',
            'package.json',
            'server/cli/main.ts',
          ],
    );
  });

  it('estop loads neither the command table nor anything of the server beyond its own modules', async () => {
    const { code, modules } = await loadedBy('estop');
    expect(code).toBe(3); // no machine process for this data dir
    const ours = modules.filter((m) => !m.startsWith('dist/cli/'));
    expect(ours).not.toContain('server/cli/main.ts');
    expect(ours.filter((m) => SERVER_ONLY.test(m))).toEqual([]);
    // From the bundle when it is fresh, else from the e-stop's own sources.
    expect(
      ours.filter(
        (m) =>
          !/^(bin\/towpath\.mjs|server\/cli\/(estop|io|progress)\.ts|server\/config\/data-dir-default\.ts|server\/machine\/process\/machine-file\.ts|engine\/machine\/door\.ts)$/.test(
            m,
          ),
      ),
    ).toEqual([]);
  });

  it.each([
    ['plan', 'input.wind'],
    ['validate', 'input.wind'],
    ['simulate', 'expected-xab.gcode'],
  ])('%s loads no server part (HTTP, GraphQL, database, serial, MCP, logging)', async (command, file) => {
    const dir = await makeTempDir();
    const input = join(dir, file);
    await copyFile(join(REFERENCE_ROOT, 'simple_cylinder', file), input);
    const { code, stderr, modules } = await loadedBy(command, input);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(modules.filter((m) => SERVER_ONLY.test(m))).toEqual([]);
    // Of our own server code only the winding commands and the winding door's file helpers.
    const ours = modules.filter((m) => m.startsWith('server/'));
    expect(ours.filter((m) => !/^server\/(version\.ts|cli\/|winding\/)/.test(m))).toEqual([]);
  });
});

describe('the winding commands bundle', () => {
  it('once built, is what the winding commands run, with the same results as the sources', async () => {
    const build = await runNode('scripts/build-cli.ts', []);
    expect(build.code, build.stderr).toBe(0);
    const bundled = (await loadFreshBundle(pathToFileURL(`${REPO_ROOT}/`), 'winding')) as
      | typeof import('./winding.ts')
      | undefined;
    expect(bundled?.plan.run).toEqual(expect.any(Function));
    const sources = await import('./winding.ts');
    expect(bundled?.plan).not.toBe(sources.plan);

    const dir = await makeTempDir();
    const outputs: string[] = [];
    for (const [label, commands] of [
      ['bundle', bundled],
      ['sources', sources],
    ] as const) {
      const input = join(dir, `${label}.wind`);
      await copyFile(join(REFERENCE_ROOT, 'multi_layer', 'input.wind'), input);
      const io = recordingIo();
      expect(await commands?.plan.run([input, '--json', '--axis-format', 'xyz'], io)).toBe(0);
      outputs.push(io.out.join('').replaceAll(label, 'X'));
      outputs.push(await readFile(join(dir, `${label}.gcode`), 'utf8'));
    }
    expect(outputs[0]).toBe(outputs[2]);
    expect(outputs[1]).toBe(outputs[3]);

    const { modules } = await loadedBy('validate', join(dir, 'sources.wind'));
    expect(modules).toContain('dist/cli/winding.mjs');
    expect(modules.filter((m) => m.startsWith('engine/') || m.includes('node_modules/zod/'))).toEqual([]);

    // The bridge's command line too: its entry, then only bundled code.
    const bridge = await loadedByScript('bin/towpath-bridge.mjs', '--version');
    expect(bridge.code).toBe(0);
    expect(bridge.modules.filter((m) => !m.startsWith('dist/cli/'))).toEqual(['bin/towpath-bridge.mjs']);
    expect(bridge.modules).toContain('dist/cli/bridge.mjs');
    expect(bridge.modules.filter((m) => m.includes('/mcp-'))).toEqual([]);
  });

  async function fakeBuild() {
    const root = await makeTempDir();
    await mkdir(join(root, 'dist', 'cli'), { recursive: true });
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    const { size, mtimeMs } = statSync(join(root, 'src', 'a.ts'));
    await writeFile(
      join(root, 'dist', 'cli', 'demo.mjs'),
      `${freshnessHeader([{ path: 'src/a.ts', size, mtimeMs }])}export const from = 'bundle';\n`,
    );
    return { root, url: pathToFileURL(`${root}/`) };
  }

  it('is used while every source it lists is unchanged', async () => {
    const { url } = await fakeBuild();
    expect(await loadFreshBundle(url, 'demo')).toMatchObject({ from: 'bundle' });
  });

  it('is not used once a source changed or disappeared, without its list, or when there is none', async () => {
    const edited = await fakeBuild();
    await writeFile(join(edited.root, 'src', 'a.ts'), 'export const a = 2;\n');
    expect(await loadFreshBundle(edited.url, 'demo')).toBeUndefined();

    const touched = await fakeBuild();
    const later = new Date(Date.now() + 5_000);
    await utimes(join(touched.root, 'src', 'a.ts'), later, later);
    expect(await loadFreshBundle(touched.url, 'demo')).toBeUndefined();

    const removed = await fakeBuild();
    await rm(join(removed.root, 'src', 'a.ts'));
    expect(await loadFreshBundle(removed.url, 'demo')).toBeUndefined();

    // A bundle from before its sources were listed in it.
    const unlisted = await fakeBuild();
    await writeFile(join(unlisted.root, 'dist', 'cli', 'demo.mjs'), "export const from = 'bundle';\n");
    expect(await loadFreshBundle(unlisted.url, 'demo')).toBeUndefined();

    const none = await fakeBuild();
    await rm(join(none.root, 'dist', 'cli', 'demo.mjs'));
    expect(await loadFreshBundle(none.url, 'demo')).toBeUndefined();
  });
});
