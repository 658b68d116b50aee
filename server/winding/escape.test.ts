// Escape from the allowed roots, against a real workstation over loopback: a
// folder inside the root flipping between a real directory and a symlink to the outside while
// plans are written, paths too long to canonicalise, and temporary files left by a crash.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { makeTempDir, startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

const WIND = await readFile(join(REFERENCE_ROOT, 'conf_valid_hoop', 'input.wind'));
const OTHER_WIND = await readFile(join(REFERENCE_ROOT, 'conf_valid_helical', 'input.wind'));

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

async function plan(path: string) {
  const response = await fetch(`${ws?.urls.winding}/plan/from-file`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path }),
  });
  return { status: response.status, body: (await response.json()) as { detail?: string; commands?: number } };
}

/** Every file below `dir`, symlinks not followed. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * A child process that keeps swapping `<root>/d` between the real folder and a symlink to
 * `outside`, as fast as it can, until killed. A separate process, so the swaps really interleave
 * with the server's file operations.
 */
function startFlipper(root: string) {
  const code = `
    const { renameSync } = require('node:fs');
    const [d, real, link] = process.argv.slice(1);
    process.stdout.write('ready\\n');
    for (;;) {
      try { renameSync(d, real); renameSync(link, d); renameSync(d, link); renameSync(real, d); } catch {}
    }`;
  const child = spawn(
    process.execPath,
    ['-e', code, join(root, 'd'), join(root, 'd.real'), join(root, 'd.link')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ready,
    stop: async () => {
      child.kill('SIGKILL');
      await stopped;
    },
  };
}

describe('a folder flipping to a symlink out of the roots while plans are written', () => {
  it('never writes outside the roots, never answers 5xx and leaves no temporary files', async () => {
    const base = await realpath(await makeTempDir('towpath-escape-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    await mkdir(join(root, 'd'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(root, 'd', 'x.wind'), WIND);
    // The outside has a different wind file under the same name: a plan of it would show.
    await writeFile(join(outside, 'x.wind'), OTHER_WIND);
    await symlink(outside, join(root, 'd.link'));
    ws = await startTestWorkstation({ WINDING_ALLOWED_ROOTS: root });

    const inside = await plan(join(root, 'd', 'x.wind'));
    expect(inside.status).toBe(200);
    const flipper = startFlipper(root);
    const statuses = new Map<number, number>();
    const planned = new Set<number | undefined>();
    try {
      await flipper.ready;
      const ROUNDS = 300;
      const CLIENTS = 6;
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < ROUNDS) {
            next += 1;
            const { status, body } = await plan(join(root, 'd', 'x.wind'));
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (status === 200) planned.add(body.commands);
            if (![200, 400, 403, 404].includes(status)) throw new Error(`HTTP ${status}: ${body.detail}`);
          }
        }),
      );
    } finally {
      await flipper.stop();
    }
    expect([...statuses.keys()].every((status) => [200, 400, 403, 404].includes(status))).toBe(true);
    // The race was real: the flips were seen (how many plans got through depends on the load).
    expect([...statuses.keys()].some((status) => status !== 200)).toBe(true);
    expect(await filesBelow(outside)).toEqual([join(outside, 'x.wind')]);
    // Only the file inside the roots was ever read and planned.
    expect([...planned].filter((commands) => commands !== inside.body.commands)).toEqual([]);
    const leftovers = (await filesBelow(root)).filter((file) => file.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
  }, 120_000);
});

describe('paths too long to canonicalise', () => {
  it('are refused with 400 before anything is resolved', async () => {
    const root = await realpath(await makeTempDir('towpath-long-'));
    ws = await startTestWorkstation({ WINDING_ALLOWED_ROOTS: root });
    // 20,000 components of `a/..`: each one a lookup if it were resolved.
    const long = `${root}/${'a/../'.repeat(20_000)}x.wind`;
    for (const route of ['/plan/from-file', '/validate/from-file', '/simulate/from-file']) {
      const response = await fetch(`${ws.urls.winding}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: long }),
      });
      expect(response.status, route).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toBe(
        'Path must not be longer than 4096 bytes',
      );
    }
    // A long path within the limit is a path like any other (here: missing, so 404).
    let edge = root;
    while (edge.length < 4000 - 101) edge += `/${'b'.repeat(100)}`;
    edge += `/${'c'.repeat(4000 - edge.length - 1)}`;
    expect(Buffer.byteLength(edge)).toBe(4000);
    expect((await plan(edge)).status).toBe(404);
    expect((await plan(`${edge}/${'d'.repeat(96)}`)).body.detail).toBe(
      'Path must not be longer than 4096 bytes',
    );
  });
});

describe('temporary files left by a crash', () => {
  it('are removed at start in the folders plans were written to, unless their process still runs', async () => {
    const base = await realpath(await makeTempDir('towpath-stale-'));
    const jobs = join(base, 'jobs');
    const unrecorded = join(base, 'elsewhere');
    await mkdir(jobs);
    await mkdir(unrecorded);
    await writeFile(join(jobs, 'part.wind'), WIND);
    const env = { WINDING_ALLOWED_ROOTS: base };
    const workstationRoot = join(base, 'ws');
    await mkdir(workstationRoot);
    ws = await startTestWorkstation(env, { root: workstationRoot });
    expect((await plan(join(jobs, 'part.wind'))).status).toBe(200);
    await ws.dispose();
    ws = undefined;
    const record = JSON.parse(await readFile(join(workstationRoot, 'data', 'output-folders.json'), 'utf8'));
    expect(record).toEqual({ folders: [jobs] });

    // A pid that no process has (above Linux's pid_max); and this test's own, very much alive.
    const dead = join(jobs, '.part.gcode.2147483646.0123456789ab.tmp');
    const live = join(jobs, `.part.gcode.${process.ppid}.0123456789ab.tmp`);
    const notOurs = join(jobs, '.part.gcode.tmp');
    const elsewhere = join(unrecorded, '.part.gcode.2147483646.0123456789ab.tmp');
    for (const file of [dead, live, notOurs, elsewhere]) await writeFile(file, 'G0 X1\n');
    ws = await startTestWorkstation(env, { root: workstationRoot });
    const left = await readdir(jobs);
    expect(left.sort()).toEqual(
      ['.part.gcode.tmp', `.part.gcode.${process.ppid}.0123456789ab.tmp`, 'part.gcode', 'part.wind'].sort(),
    );
    expect(await readdir(unrecorded)).toHaveLength(1);
  });
});
