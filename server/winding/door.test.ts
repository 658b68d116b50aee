// The winding door, black box: a real workstation on free loopback ports, real files in a
// temporary folder, real HTTP (spec/winding.md §7).
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { MAX_INPUT_BYTES } from './input-file.ts';

const CASES = (await readdir(REFERENCE_ROOT, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

interface Expected {
  plan?: Record<string, unknown>;
  simulate?: Record<string, number>;
  error?: { level: string; detail: string };
}
const expectedOf = async (name: string): Promise<Expected> =>
  JSON.parse(await readFile(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8'));

let ws: TestWorkstation;
let allowed: string;
let outside: string;
let base: string;

beforeAll(async () => {
  // A folder of its own, not the OS temp folder: the allowed roots must exclude `outside`.
  base = await realpath(await mkdtemp(join(tmpdir(), 'towpath-winding-door-')));
  allowed = join(base, 'allowed');
  outside = join(base, 'outside');
  await mkdir(allowed);
  await mkdir(outside);
  await writeFile(
    join(allowed, 'single.wind'),
    await readFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind')),
  );
  await mkdir(join(base, 'file-root'));
  await mkdir(folderRoot(), { recursive: true });
  await mkdir(join(base, 'workstation'));
  ws = await startTestWorkstation(
    { WINDING_ALLOWED_ROOTS: `${allowed}:${join(base, 'file-root', 'only.wind')}:${folderRoot()}` },
    { root: join(base, 'workstation') },
  );
});

afterAll(async () => {
  await ws?.dispose();
  await rm(base, { recursive: true, force: true });
});

/** A root that is a folder named like a definition: its derived output lies outside the roots. */
function folderRoot() {
  return join(base, 'folder-root', 'part.wind');
}

async function post(route: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${ws.urls.winding}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: (typeof body === 'string' || body instanceof Buffer ? body : JSON.stringify(body)) as BodyInit,
  });
  return { status: response.status, body: await response.json(), type: response.headers.get('content-type') };
}

const rootsText = () => `${allowed}, ${join(base, 'file-root', 'only.wind')}, ${folderRoot()}`;

describe('every reference case through the winding door', () => {
  for (const name of CASES) {
    it(name, async () => {
      const expected = await expectedOf(name);
      const dir = join(allowed, name);
      await mkdir(dir, { recursive: true });
      const input = join(dir, 'input.wind');
      await copyFile(join(REFERENCE_ROOT, name, 'input.wind'), input);

      const validated = await post('/validate/from-file', { path: input });
      if (expected.plan) {
        expect(validated).toMatchObject({ status: 200, body: { status: 'ok', path: input } });
        const planned = await post('/plan/from-file', { path: input });
        expect(planned.status).toBe(200);
        expect(planned.type).toBe('application/json; charset=utf-8');
        const output = join(dir, 'input.gcode');
        expect(planned.body).toEqual({ ...expected.plan, output });
        expect(
          (await readFile(output)).equals(await readFile(join(REFERENCE_ROOT, name, 'expected-xab.gcode'))),
        ).toBe(true);
        expect(await post('/simulate/from-file', { path: output })).toEqual({
          status: 200,
          body: expected.simulate,
          type: 'application/json; charset=utf-8',
        });

        const xyz = await post('/plan/from-file', { path: input, axis_format: 'xyz' });
        expect(xyz.body).toEqual({ ...expected.plan, output, axisFormat: 'xyz' });
        const xyzExpected = await readFile(join(REFERENCE_ROOT, name, 'expected-xyz.gcode')).catch(
          () => undefined,
        );
        if (xyzExpected) expect((await readFile(output)).equals(xyzExpected)).toBe(true);
      } else if (expected.error) {
        const detail = expected.error.detail.replaceAll('{path}', input);
        expect(validated).toMatchObject({ status: 400, body: { status: 'error', detail } });
        expect(await post('/plan/from-file', { path: input })).toMatchObject({
          status: 400,
          body: { detail },
        });
        expect(await readdir(dir)).toEqual(['input.wind']);
      }
    });
  }
});

describe('request bodies (§7.1)', () => {
  const cases: [string, unknown, Record<string, string>, string][] = [
    [
      'wrong content type',
      '{"path":"/x"}',
      { 'content-type': 'text/plain' },
      'Content-Type must be application/json',
    ],
    ['no content type', '{"path":"/x"}', { 'content-type': '' }, 'Content-Type must be application/json'],
    ['bad JSON', '{"path":', {}, 'not valid JSON'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {}, 'not valid JSON'],
    ['an array', '[1]', {}, 'expected a JSON object'],
    ['null', 'null', {}, 'expected a JSON object'],
    ['missing path', {}, {}, 'path: Field required'],
    ['null path', { path: null }, {}, 'path: Input should be a valid string'],
    ['numeric path', { path: 5 }, {}, 'path: Input should be a valid string'],
    [
      'bad axis format',
      { path: '/x', axis_format: 'abc' },
      {},
      "axis_format: Input should be 'xab' or 'xyz'",
    ],
    ['bad verbose', { path: '/x', verbose: 'yes' }, {}, 'verbose: Input should be a valid boolean'],
  ];
  it.each(cases)('plan answers 400 for %s', async (_name, body, headers, message) => {
    expect(await post('/plan/from-file', body, headers)).toMatchObject({
      status: 400,
      body: { detail: `Invalid request body: ${message}` },
    });
  });

  it('reports the first failing field in table order and ignores unknown fields', async () => {
    expect((await post('/plan/from-file', { verbose: 1, axis_format: 2 })).body.detail).toBe(
      'Invalid request body: path: Field required',
    );
    const result = await post('/validate/from-file', {
      path: join(allowed, 'single.wind'),
      axis_format: 'nope',
      x: 1,
    });
    expect(result).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('refuses bodies over 10 MB with 413 on every route', async () => {
    const huge = JSON.stringify({ path: 'x'.repeat(10 * 1024 * 1024 + 10) });
    expect(await post('/plan/from-file', huge)).toMatchObject({
      status: 413,
      body: { detail: 'Request body is larger than 10 MB' },
    });
    expect(await post('/validate/from-file', huge)).toMatchObject({
      status: 413,
      body: { status: 'error', detail: 'Request body is larger than 10 MB' },
    });
    expect((await post('/stream/', huge)).status).toBe(413);
  });
});

describe('paths (§7.2) and output (§7.3)', () => {
  it('applies the path rules in order', async () => {
    expect(await post('/plan/from-file', { path: '  ' })).toMatchObject({
      status: 400,
      body: { detail: 'Path must not be empty' },
    });
    expect(await post('/plan/from-file', { path: '/tmp/a\u0000b' })).toMatchObject({
      status: 400,
      body: { detail: 'Path must not contain NUL characters' },
    });
    expect(await post('/simulate/from-file', { path: 'jobs/part.gcode' })).toMatchObject({
      status: 400,
      body: { detail: "Path must be absolute: 'jobs/part.gcode'" },
    });
  });

  it('refuses paths outside the roots with 403, even missing ones and through .. or symlinks', async () => {
    await writeFile(join(outside, 'secret.wind'), '{}');
    await symlink(join(outside, 'secret.wind'), join(allowed, 'escape.wind'));
    for (const path of [
      join(outside, 'secret.wind'),
      join(outside, 'missing.wind'),
      `${allowed}/../outside/secret.wind`,
      join(allowed, 'escape.wind'),
    ]) {
      const result = await post('/plan/from-file', { path });
      expect(result.status, path).toBe(403);
      expect(result.body.detail).toBe(
        `Path '${path}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${rootsText()}`,
      );
    }
    const validate = await post('/validate/from-file', { path: join(outside, 'secret.wind') });
    expect(validate).toMatchObject({ status: 403, body: { status: 'error' } });
  });

  it('answers 404 for missing inputs inside the roots', async () => {
    const wind = join(allowed, 'nope.wind');
    expect(await post('/plan/from-file', { path: wind })).toMatchObject({
      status: 404,
      body: { detail: `No wind definition found at ${wind}` },
    });
    expect(await post('/validate/from-file', { path: wind })).toMatchObject({
      status: 404,
      body: { status: 'error', detail: `No wind definition found at ${wind}` },
    });
    expect(await post('/simulate/from-file', { path: join(allowed, 'nope.gcode') })).toMatchObject({
      status: 404,
      body: { detail: `No file found at ${join(allowed, 'nope.gcode')}` },
    });
  });

  it('refuses folders and unreadable content with 400', async () => {
    await mkdir(join(allowed, 'folder.wind'), { recursive: true });
    expect(await post('/plan/from-file', { path: join(allowed, 'folder.wind') })).toMatchObject({
      status: 400,
      body: {
        detail: `Could not read wind definition at ${join(allowed, 'folder.wind')}: not a regular file`,
      },
    });
    await writeFile(join(allowed, 'latin1.gcode'), Buffer.from('; caf\xe9\nG0 X1\n', 'latin1'));
    expect(await post('/simulate/from-file', { path: join(allowed, 'latin1.gcode') })).toMatchObject({
      status: 400,
      body: { detail: `Could not read G-code at ${join(allowed, 'latin1.gcode')}: not valid UTF-8 (byte 5)` },
    });
    await writeFile(join(allowed, 'bad.gcode'), '; Parameters {"mandrel":{"diameter":70}}\nG0 F9000\nG91\n');
    expect(await post('/simulate/from-file', { path: join(allowed, 'bad.gcode') })).toMatchObject({
      status: 400,
      body: {
        detail:
          'Line 3: G91 (relative positioning) is not supported; programs must use absolute positioning (G90)',
      },
    });
  });

  it("keeps the spec's 64 MB for G-code it simulates (the CLI takes any size)", async () => {
    const big = join(allowed, 'big.gcode');
    await writeFile(big, '');
    await truncate(big, MAX_INPUT_BYTES + 1);
    expect(await post('/simulate/from-file', { path: big })).toMatchObject({
      status: 400,
      body: { detail: `Could not read G-code at ${big}: file is larger than 64 MB` },
    });
  });

  it('applies every input rule before the output rules: a folder is not a regular file, even with its output outside the roots', async () => {
    expect(await post('/plan/from-file', { path: folderRoot() })).toMatchObject({
      status: 400,
      body: { detail: `Could not read wind definition at ${folderRoot()}: not a regular file` },
    });
    // The output rules still hold once the input is readable.
    const only = join(base, 'file-root', 'only.wind');
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), only);
    expect((await post('/plan/from-file', { path: only })).status).toBe(403);
    await rm(only);
  });

  it('writes the output only inside the roots and never over the input or a folder', async () => {
    // A root that is one file: the input is allowed, its sibling output is not.
    const only = join(base, 'file-root', 'only.wind');
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), only);
    expect(await post('/plan/from-file', { path: only })).toMatchObject({
      status: 403,
      body: {
        detail: `Output path '${join(base, 'file-root', 'only.gcode')}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${rootsText()}`,
      },
    });
    // An existing output symlink is followed.
    const dir = join(allowed, 'linked');
    await mkdir(dir);
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), join(dir, 'part.wind'));
    await symlink(join(outside, 'elsewhere.gcode'), join(dir, 'part.gcode'));
    expect((await post('/plan/from-file', { path: join(dir, 'part.wind') })).status).toBe(403);
    expect(await readdir(outside)).not.toContain('elsewhere.gcode');

    const same = join(allowed, 'same.gcode');
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), same);
    expect(await post('/plan/from-file', { path: same })).toMatchObject({
      status: 400,
      body: { detail: `Output path '${same}' would overwrite the input file` },
    });
    const folderCase = join(allowed, 'blocked');
    await mkdir(join(folderCase, 'part.gcode'), { recursive: true });
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), join(folderCase, 'part.wind'));
    expect(await post('/plan/from-file', { path: join(folderCase, 'part.wind') })).toMatchObject({
      status: 400,
      body: { detail: `Could not write G-code to ${join(folderCase, 'part.gcode')}: not a regular file` },
    });
  });

  it('replaces an existing output only with a complete program, leaving no temporary file', async () => {
    const dir = join(allowed, 'replace');
    await mkdir(dir);
    await copyFile(
      join(REFERENCE_ROOT, 'conf_invalid_wind_angle_out_of_range', 'input.wind'),
      join(dir, 'part.wind'),
    );
    await writeFile(join(dir, 'part.gcode'), 'previous\n');
    expect((await post('/plan/from-file', { path: join(dir, 'part.wind') })).status).toBe(400);
    expect(await readFile(join(dir, 'part.gcode'), 'utf8')).toBe('previous\n');
    expect((await readdir(dir)).sort()).toEqual(['part.gcode', 'part.wind']);
  });
});

describe('stream (§7.4)', () => {
  const program =
    '; Parameters {"mandrel":{"diameter":70}}\nG0 X0 A0 B0\nG0 F9000\n; comment\nG0 X0 A45 B0\nG92 A0\n';

  it('dry-runs by default: validates and counts without a port', async () => {
    expect(await post('/stream/', { gcode: program })).toMatchObject({
      status: 200,
      body: { commands_streamed: 4, total_commands: 4, dry_run: true },
    });
    expect((await post('/stream', { gcode: program, dry_run: true })).body.total_commands).toBe(4);
    expect((await post('/stream/', { gcode: '; only a comment\n' })).body).toEqual({
      commands_streamed: 0,
      total_commands: 0,
      dry_run: true,
    });
  });

  it('refuses what it cannot send with the spec messages', async () => {
    const cases: [unknown, string][] = [
      [{}, 'Invalid request body: gcode: Field required'],
      [{ gcode: 1 }, 'Invalid request body: gcode: Input should be a valid string'],
      [{ gcode: 'G0', port: 5 }, 'Invalid request body: port: Input should be a valid string'],
      [{ gcode: 'G0', baud_rate: 1.5 }, 'Invalid request body: baud_rate: Input should be a valid integer'],
      [
        { gcode: 'G0', baud_rate: '9600' },
        'Invalid request body: baud_rate: Input should be a valid integer',
      ],
      [
        { gcode: 'G0', baud_rate: 0 },
        'Invalid request body: baud_rate: Input should be greater than or equal to 1',
      ],
      [{ gcode: 'G0', dry_run: 'no' }, 'Invalid request body: dry_run: Input should be a valid boolean'],
      [{ gcode: ' \n\n' }, 'G-code program contained no commands'],
      [{ gcode: 'G0 X1\nG0 X2*3\n' }, "Line 2: command contains '*', which is reserved for the checksum"],
      [{ gcode: `G0 ${'X1 '.repeat(30)}` }, 'Line 1: command is longer than 80 characters'],
      [{ gcode: 'G0 X1 ; ok\nG0 Xé\n' }, 'Line 2: command contains a character that cannot be sent'],
      [{ gcode: program, dry_run: false }, 'port is required when dry_run is false'],
      [{ gcode: program, dry_run: false, port: '  ' }, 'port is required when dry_run is false'],
      [
        { gcode: program, dry_run: false, port: '/dev/ttyUSB0\u0000' },
        'Invalid request body: port: must not contain NUL characters',
      ],
      [
        { gcode: '; nothing\n', dry_run: false, port: '/dev/ttyUSB9' },
        'G-code program contained no commands',
      ],
    ];
    for (const [body, detail] of cases) {
      expect(await post('/stream/', body), JSON.stringify(body)).toMatchObject({
        status: 400,
        body: { detail },
      });
    }
  });

  it('answers 502 with the controller message when the port cannot be opened', async () => {
    const port = join(allowed, 'no-such-tty');
    const result = await post('/stream/', { gcode: program, dry_run: false, port });
    expect(result.status).toBe(502);
    expect(result.body.detail).toMatch(new RegExp(`^Streaming failed: Could not open serial port ${port}: `));
  });
});

describe('routing', () => {
  it('answers unknown routes 404 and wrong methods 405', async () => {
    const missing = await fetch(`${ws.urls.winding}/plan`);
    expect([missing.status, await missing.json()]).toEqual([404, { detail: 'Not Found' }]);
    for (const [method, route] of [
      ['GET', '/plan/from-file'],
      ['PUT', '/simulate/from-file'],
      ['DELETE', '/validate/from-file'],
      ['GET', '/stream/'],
      ['POST', '/openapi.json'],
    ] as const) {
      const response = await fetch(`${ws.urls.winding}${route}`, { method });
      expect([method, route, response.status, await response.json()]).toEqual([
        method,
        route,
        405,
        { detail: 'Method Not Allowed' },
      ]);
    }
  });
});

describe('hostile input', () => {
  it('answers every fuzzed body with a documented 4xx and a detail, never a 5xx', async () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
    const values: unknown[] = [
      null,
      true,
      0,
      -1,
      1e308,
      'x'.repeat(100_000),
      '',
      [],
      {},
      { path: '/etc/passwd' },
      '../../etc/passwd',
      `${allowed}/../../../etc/passwd`,
      join(allowed, 'escape.wind'),
      'relative/part.wind',
      '/dev/zero',
      '/proc/self/environ',
      join(allowed, '\u0000.wind'),
      join(allowed, 'single.wind'),
      '\ud800',
    ];
    const fields = [
      'path',
      'axis_format',
      'verbose',
      'gcode',
      'port',
      'baud_rate',
      'dry_run',
      '__proto__',
      'constructor',
    ];
    const bodies: (string | Buffer)[] = [
      '['.repeat(100_000) + ']'.repeat(100_000),
      `{"path":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
      '{"path": "\\ud800"}',
      '',
    ];
    for (let i = 0; i < 150; i++) {
      const body: Record<string, unknown> = {};
      const count = Math.floor(random() * 4);
      for (let f = 0; f < count; f++) body[pick(fields)] = pick(values);
      bodies.push(JSON.stringify(body));
    }
    const routes = ['/plan/from-file', '/simulate/from-file', '/validate/from-file', '/stream/'];
    for (const body of bodies) {
      for (const route of routes) {
        const response = await fetch(`${ws.urls.winding}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body as unknown as BodyInit,
        });
        const text = await response.text();
        const where = `${route} ${typeof body === 'string' ? body.slice(0, 80) : 'bytes'}`;
        expect([200, 400, 403, 404, 413], where).toContain(response.status);
        if (response.status !== 200) expect(typeof JSON.parse(text).detail, where).toBe('string');
      }
    }
    // The only file the fuzz could reach inside the roots was planned, nothing escaped.
    expect(await readdir(outside)).not.toContain('passwd.gcode');
  });
});

describe('load', () => {
  it('plans 20 different inputs concurrently, every output complete and correct', async () => {
    const reference = [
      'conf_valid_skip',
      'simple_cylinder',
      'conf_valid_hoop',
      'sized_simple_cylinder',
      'conf_valid_helical',
    ];
    const jobs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const name = reference[i % reference.length] as string;
        const dir = join(allowed, 'concurrent', String(i));
        await mkdir(dir, { recursive: true });
        await copyFile(join(REFERENCE_ROOT, name, 'input.wind'), join(dir, 'job.wind'));
        return { name, dir };
      }),
    );
    const results = await Promise.all(
      jobs.map(({ dir }) => post('/plan/from-file', { path: join(dir, 'job.wind') })),
    );
    for (const [i, result] of results.entries()) {
      const { name, dir } = jobs[i] as { name: string; dir: string };
      expect(result.status).toBe(200);
      expect(result.body.commands).toBe((await expectedOf(name)).plan?.commands);
      const written = await readFile(join(dir, 'job.gcode'));
      expect(written.equals(await readFile(join(REFERENCE_ROOT, name, 'expected-xab.gcode'))), name).toBe(
        true,
      );
    }
  });
});
