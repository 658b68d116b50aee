// The workstation's winding tools over MCP, end to end: the SDK's Client starts the
// combined server (`node server/mcp/sidecar.ts mcp`, the sidecar's own entry) over stdio and calls
// each tool on every reference case, valid and invalid, comparing with the reference bodies.
import { copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../bridge/testing/run-bridge.ts';
import { REFERENCE_ROOT } from '../../reference/paths.ts';
import { closeMismatches } from '../testing/close.ts';
import { startTestWorkstation } from '../testing/workstation.ts';
import { WORKSTATION_FILE } from '../workstation-file.ts';

const INLINE = '<inline definition>';
const NOT_RUNNING = {
  code: 'WORKSTATION_NOT_RUNNING',
  message: 'No Towpath workstation is running on this PC',
};

interface Expected {
  plan?: Record<string, unknown>;
  simulate?: Record<string, number>;
  error?: { level: 'file' | 'planning'; detail: string };
}

const cases = (await readdir(REFERENCE_ROOT, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const expectedOf = async (name: string): Promise<Expected> =>
  JSON.parse(await readFile(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8'));

let base: string;
let allowed: string;
let dataDir: string;
let client: Client;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'towpath-mcp-winding-')));
  allowed = join(base, 'allowed');
  dataDir = join(base, 'data');
  await mkdir(allowed);
  await mkdir(dataDir);
  ({ client } = await connectMcp(process.execPath, ['server/mcp/sidecar.ts', 'mcp'], {
    TASK_HOST_URL: 'http://127.0.0.1:9',
    HOME: join(base, 'home'),
    TOWPATH_DATA_DIR: dataDir,
    WINDING_ALLOWED_ROOTS: allowed,
  }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await rm(base, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  if (result.isError) {
    expect(result.structuredContent).toBeUndefined();
    return { error: JSON.parse(text) as Record<string, unknown> };
  }
  // The text block is the structured content, compact.
  expect(text).toBe(JSON.stringify(result.structuredContent));
  return { data: result.structuredContent as Record<string, unknown> };
}

/** Numbers within 1e-9 relative (spec/winding.md §8), everything else exactly. */
function expectClose(actual: unknown, expected: unknown) {
  expect(closeMismatches(actual, expected)).toEqual([]);
}

async function copyCase(name: string, file = 'input.wind') {
  const dir = join(allowed, name);
  await mkdir(dir, { recursive: true });
  const target = join(dir, file);
  await copyFile(join(REFERENCE_ROOT, name, file), target);
  return { dir, target };
}

describe('tools/list of the combined server', () => {
  it('lists the 16 task tools, then the 4 winding tools, inside the budget', async () => {
    const list = await client.listTools();
    expect(list.tools).toHaveLength(20);
    expect(list.tools.slice(16).map((tool) => tool.name)).toEqual([
      'validate_wind',
      'plan_wind',
      'simulate_gcode',
      'machine_status',
    ]);
    expect(Buffer.byteLength(JSON.stringify(list))).toBeLessThan(14_336);
    const annotations = Object.fromEntries(list.tools.slice(16).map((tool) => [tool.name, tool.annotations]));
    const reading = {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    };
    expect(annotations).toEqual({
      validate_wind: reading,
      plan_wind: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      simulate_gcode: reading,
      machine_status: reading,
    });
    for (const tool of list.tools.slice(16)) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(JSON.stringify([tool.inputSchema, tool.outputSchema])).not.toMatch(
        /"(description|title|\$schema)"/,
      );
      expect(tool.title).toEqual(expect.any(String));
    }
    // The door's fields, with the door's defaults.
    expect(list.tools[17]?.inputSchema.properties).toEqual({
      path: { type: 'string' },
      definition: { type: 'object', additionalProperties: {} },
      axis_format: { default: 'xab', type: 'string', enum: ['xab', 'xyz'] },
      verbose: { default: false, type: 'boolean' },
    });
  });
});

describe.each(cases)('reference case %s', (name) => {
  it('validates, plans and simulates by path and inline, with the reference bodies and errors', async () => {
    const expected = await expectedOf(name);
    const { dir, target } = await copyCase(name);
    const definition = JSON.parse(await readFile(target, 'utf8'));
    const output = join(dir, 'input.gcode');

    if (expected.error) {
      const code = expected.error.level === 'file' ? 'FILE_ERROR' : 'PLANNING_ERROR';
      const fromFile = { code, message: expected.error.detail.replaceAll('{path}', target) };
      const inline = { code, message: expected.error.detail.replaceAll('{path}', INLINE) };
      expect(await call('validate_wind', { path: target })).toEqual({ error: fromFile });
      expect(await call('plan_wind', { path: target })).toEqual({ error: fromFile });
      expect(await call('validate_wind', { definition })).toEqual({ error: inline });
      expect(await call('plan_wind', { definition })).toEqual({ error: inline });
      expect(await readdir(dir)).toEqual(['input.wind']);
      return;
    }

    expect(await call('validate_wind', { path: target })).toEqual({ data: { status: 'ok', path: target } });
    expect(await call('validate_wind', { definition })).toEqual({ data: { status: 'ok' } });

    const inline = await call('plan_wind', { definition });
    expectClose(inline.data, expected.plan);
    expect(await readdir(dir)).toEqual(['input.wind']);

    const planned = await call('plan_wind', { path: target });
    const { commands, ...rest } = expected.plan as Record<string, unknown>;
    expectClose(planned.data, { commands, output, ...rest });
    expect(await readFile(output)).toEqual(await readFile(join(REFERENCE_ROOT, name, 'expected-xab.gcode')));

    const xyz = await call('plan_wind', { path: target, axis_format: 'xyz' });
    expect(xyz.data?.axisFormat).toBe('xyz');
    expect(xyz.data?.commands).toBe(commands);

    const reference = await copyCase(name, 'expected-xab.gcode');
    expectClose((await call('simulate_gcode', { path: reference.target })).data, expected.simulate);
  });
});

describe('winding tool errors', () => {
  it('answers bad arguments with INVALID_INPUT and the door path rules with their codes and details', async () => {
    const wind = join(allowed, 'errors', 'part.wind');
    await mkdir(join(allowed, 'errors', 'folder.wind'), { recursive: true });
    const invalid = (message: string) => ({ error: { code: 'INVALID_INPUT', message } });
    const exactlyOne = invalid('arguments: give exactly one of path or definition');
    expect(await call('validate_wind', {})).toEqual(exactlyOne);
    expect(await call('plan_wind', { path: wind, definition: {} })).toEqual(exactlyOne);
    expect(await call('validate_wind', { path: 5 })).toEqual(invalid('path: Input should be a valid string'));
    expect(await call('plan_wind', { path: wind, axis_format: 'abc' })).toEqual(
      invalid("axis_format: Input should be 'xab' or 'xyz'"),
    );
    expect(await call('simulate_gcode', { path: wind, extra: 1 })).toEqual(invalid('extra: unknown field'));
    expect(await call('machine_status', { verbose: true })).toEqual(invalid('verbose: unknown field'));
    expect(await call('simulate_gcode', { path: '' })).toEqual(invalid('Path must not be empty'));
    expect(await call('validate_wind', { path: 'part.wind' })).toEqual(
      invalid("Path must be absolute: 'part.wind'"),
    );

    expect(await call('plan_wind', { path: join(base, 'outside.wind') })).toEqual({
      error: {
        code: 'PATH_NOT_ALLOWED',
        message: `Path '${join(base, 'outside.wind')}' is outside the allowed roots. Configure WINDING_ALLOWED_ROOTS to permit additional roots. Current roots: ${allowed}`,
      },
    });
    expect(await call('validate_wind', { path: wind })).toEqual({
      error: { code: 'NOT_FOUND', message: `No wind definition found at ${wind}` },
    });
    expect(await call('simulate_gcode', { path: join(allowed, 'none.gcode') })).toEqual({
      error: { code: 'NOT_FOUND', message: `No file found at ${join(allowed, 'none.gcode')}` },
    });
    const folder = join(allowed, 'errors', 'folder.wind');
    expect(await call('plan_wind', { path: folder })).toEqual({
      error: {
        code: 'FILE_ERROR',
        message: `Could not read wind definition at ${folder}: not a regular file`,
      },
    });
    const bad = join(allowed, 'errors', 'relative.gcode');
    await writeFile(bad, '; Parameters {"mandrel":{"diameter":70}}\nG0 F9000\nG91\n');
    expect(await call('simulate_gcode', { path: bad })).toEqual({
      error: {
        code: 'SIMULATION_ERROR',
        message:
          'Line 3: G91 (relative positioning) is not supported; programs must use absolute positioning (G90)',
      },
    });
    // The output rules of the door: never over the input, never a folder.
    const same = join(allowed, 'errors', 'same.gcode');
    await copyFile(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), same);
    expect(await call('plan_wind', { path: same })).toEqual({
      error: { code: 'FILE_ERROR', message: `Output path '${same}' would overwrite the input file` },
    });
  });

  it('answers an unknown tool as the bridge does', async () => {
    const result = (await client.callTool({ name: 'move_machine', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({
      type: 'text',
      text: JSON.stringify({ code: 'UNKNOWN_OPERATION', message: 'Unknown tool: move_machine' }),
    });
  });
});

describe('machine_status', () => {
  it('says no workstation is running without a file, with a dead pid, and when nobody answers', async () => {
    const file = join(dataDir, WORKSTATION_FILE);
    await rm(file, { force: true });
    expect(await call('machine_status', {})).toEqual({ error: NOT_RUNNING });
    const dead = { pid: 2 ** 22 + 1, lanUrl: 'http://127.0.0.1:9', windingUrl: 'http://127.0.0.1:9' };
    await writeFile(file, JSON.stringify({ ...dead, startedAt: new Date().toISOString() }));
    expect(await call('machine_status', {})).toEqual({ error: NOT_RUNNING });
    // A live pid (this test's) whose door is gone: port 9 (discard) refuses on loopback.
    await writeFile(file, JSON.stringify({ ...dead, pid: process.pid, startedAt: new Date().toISOString() }));
    expect(await call('machine_status', {})).toEqual({ error: NOT_RUNNING });
    await writeFile(file, 'not json');
    expect(await call('machine_status', {})).toEqual({ error: NOT_RUNNING });
    await rm(file);
  });

  it("answers the running workstation's /api/machine/status body", async () => {
    const root = join(base, 'workstation');
    await mkdir(root);
    const ws = await startTestWorkstation({ TOWPATH_DATA_DIR: dataDir }, { root });
    try {
      const info = JSON.parse(await readFile(join(dataDir, WORKSTATION_FILE), 'utf8'));
      expect(info.lanUrl).toBe(ws.urls.lan);
      const status = await (await fetch(`${ws.urls.lan}/api/machine/status`)).json();
      expect(await call('machine_status', {})).toEqual({ data: status });
      expect(status).toMatchObject({ state: expect.any(String) });
    } finally {
      await ws.dispose();
    }
    await expect(stat(join(dataDir, WORKSTATION_FILE))).rejects.toThrow();
    expect(await call('machine_status', {})).toEqual({ error: NOT_RUNNING });
  });
});
