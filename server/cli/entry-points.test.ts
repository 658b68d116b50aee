// The entry points people run, `towpath` (bin/towpath.mjs), `towpath-bridge` (bin/towpath-bridge.mjs)
// and the machine process the core forks (dist/cli/machine.mjs), in a checkout of their own: without
// dist/cli/ they run the TypeScript sources, once built they run the bundles, and after a source is
// edited they run the sources again (nothing is rebuilt behind the user's back). A copy, because the
// shared checkout's dist/cli/ is in use by other tests.
import { type ChildProcess, execFileSync, fork, spawnSync } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { REPO_ROOT } from '../testing/process.ts';
import { makeTempDir } from '../testing/workstation.ts';

const TRACER = pathToFileURL(join(REPO_ROOT, 'server', 'testing', 'trace-modules.ts')).href;

let scratch: string;
let checkout: string;
let input: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'towpath-entry-points-'));
  checkout = join(scratch, 'towpath');
  await mkdir(checkout);
  for (const part of [
    'bin',
    'bridge',
    'engine',
    'server',
    'scripts',
    'resources',
    'package.json',
    'tsconfig.json',
  ])
    await cp(join(REPO_ROOT, part), join(checkout, part), {
      recursive: true,
      filter: (source) => !source.endsWith('.test.ts') && !source.endsWith('.test.tsx'),
    });
  await symlink(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'));
  input = join(scratch, 'simple_cylinder.wind');
  await cp(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'), input);
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(scratch, { recursive: true, force: true });
});

/** Runs a bin of the copy with the tests' Node; its exit code, output and the modules it loaded. */
async function run(bin: string, ...args: string[]) {
  const trace = join(await makeTempDir(), 'modules.txt');
  const result = spawnSync(process.execPath, [join(checkout, 'bin', bin), ...args], {
    cwd: await makeTempDir(),
    env: {
      ...process.env,
      NODE_OPTIONS: `--import=${TRACER}`,
      TOWPATH_TRACE_MODULES: trace,
      TOWPATH_DATA_DIR: join(await makeTempDir(), 'data'),
    },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules: await loaded(trace) };
}

/** The checkout-relative modules of a trace (node_modules and built-ins left out). */
async function loaded(trace: string): Promise<string[]> {
  const root = pathToFileURL(`${checkout}/`).href;
  return (await readFile(trace, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith(root) && !url.includes('/node_modules/'))
    .map((url) => url.slice(root.length))
    .sort();
}

/** Forks the copy's machine entry as the core does; resolves with the modules it loaded once it stopped. */
async function startMachineProcess(entry: string): Promise<string[]> {
  const trace = join(await makeTempDir(), 'modules.txt');
  const child = fork(entry, [], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    execArgv: [`--import=${TRACER}`],
    env: {
      PATH: process.env.PATH,
      // The core creates the data dir before it forks the machine process.
      TOWPATH_DATA_DIR: await makeTempDir(),
      MACHINE_PORT: '0',
      LOG_LEVEL: 'silent',
      TOWPATH_TRACE_MODULES: trace,
    },
  });
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const message = await new Promise<{ type?: string; url?: string }>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`machine process exited (${code}): ${stderr}`)));
  });
  expect(message).toMatchObject({ type: 'ready' });
  const health = await fetch(`${message.url}/healthz`);
  expect(health.status).toBe(200);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  // The serial driver is loaded when a port is first listed or opened, not at start.
  expect(await readFile(trace, 'utf8')).not.toMatch(/\/node_modules\/(@serialport|serialport)\//);
  return loaded(trace);
}

const HELP_SOURCES = [
  'bin/towpath.mjs',
  'bridge/fresh-bundle.ts',
  'bridge/version.ts',
  'package.json',
  'server/cli/main.ts',
];

describe('the entry points of a checkout', () => {
  it('run the sources without dist/cli, the bundles once built, and the sources again once one is edited', async () => {
    // A clean checkout: nothing built.
    const help = await run('towpath.mjs', '--help');
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Commands:');
    expect(help.modules).toEqual(HELP_SOURCES);
    const validate = await run('towpath.mjs', 'validate', input);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.modules).toContain('server/cli/winding.ts');
    expect(validate.modules.filter((m) => m.startsWith('dist/'))).toEqual([]);
    const bridge = await run('towpath-bridge.mjs', '--version');
    expect(bridge.code, bridge.stderr).toBe(0);
    expect(bridge.stdout).toMatch(/^towpath-bridge \d+\.\d+\.\d+/);
    expect(bridge.modules).toContain('bridge/command-line.ts');
    const estop = await run('towpath.mjs', 'estop');
    expect(estop.code).toBe(3); // no machine process on this data dir
    expect(estop.modules).toContain('server/cli/estop.ts');

    // Built: only the entry and bundled code.
    execFileSync(process.execPath, [join(checkout, 'scripts', 'build-cli.ts')], { cwd: checkout });
    const built = await run('towpath.mjs', '--help');
    expect(built.stdout).toBe(help.stdout);
    expect(built.modules).toEqual(['bin/towpath.mjs', 'dist/cli/towpath.mjs']);
    const validated = await run('towpath.mjs', 'validate', input);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toBe(validate.stdout);
    expect(validated.modules.filter((m) => !m.startsWith('dist/'))).toEqual(['bin/towpath.mjs']);
    expect(validated.modules).toContain('dist/cli/winding.mjs');
    const bundledBridge = await run('towpath-bridge.mjs', '--version');
    expect(bundledBridge.stdout).toBe(bridge.stdout);
    expect(bundledBridge.modules.filter((m) => !m.startsWith('dist/'))).toEqual(['bin/towpath-bridge.mjs']);
    const bundledEstop = await run('towpath.mjs', 'estop');
    expect(bundledEstop.code).toBe(3);
    expect(bundledEstop.modules).toEqual(['bin/towpath.mjs', 'dist/cli/estop.mjs']);

    // Edited since the build: the command table's bundle is stale, so its sources answer.
    await appendFile(join(checkout, 'server', 'cli', 'main.ts'), '\n// edited after the build\n');
    const edited = await run('towpath.mjs', '--help');
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toBe(help.stdout);
    expect(edited.modules).toEqual([...HELP_SOURCES, 'dist/cli/towpath.mjs'].sort());
  }, 120_000);

  it('start the machine process from its bundle while fresh, from the sources once a source is edited', async () => {
    execFileSync(process.execPath, [join(checkout, 'scripts', 'build-cli.ts')], { cwd: checkout });
    const entry = join(checkout, 'dist', 'cli', 'machine.mjs');
    const bundled = await startMachineProcess(entry);
    expect(bundled.filter((m) => !m.startsWith('dist/'))).toEqual([]);
    expect(bundled).toContain('dist/cli/machine.mjs');

    await appendFile(
      join(checkout, 'server', 'machine', 'process', 'controller.ts'),
      '\n// edited after the build\n',
    );
    const sources = await startMachineProcess(entry);
    expect(sources).toContain('server/machine/process/entry.ts');
    expect(sources).toContain('server/machine/process/controller.ts');
  }, 120_000);

  it.runIf(systemNodeMajor() !== undefined && (systemNodeMajor() as number) < 22)(
    'say in one line that an older Node cannot run them',
    () => {
      for (const bin of ['towpath.mjs', 'towpath-bridge.mjs']) {
        const result = spawnSync('/usr/bin/node', [join(REPO_ROOT, 'bin', bin), '--help'], {
          encoding: 'utf8',
        });
        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(
          /^towpath(-bridge)?: needs Node\.js 22 or newer \(this is v\d+\.[^)]*\); .*\n$/,
        );
      }
    },
  );
});

/** The major version of the system's own Node (/usr/bin/node), when there is one. */
function systemNodeMajor(): number | undefined {
  const result = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? Number(result.stdout.slice(1).split('.')[0]) : undefined;
}
