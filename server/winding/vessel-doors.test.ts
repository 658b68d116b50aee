// A vessel through the winding door and the MCP tools: the plan answer carries the analysis along
// the part and the G-code is the engine's; a machine the vessel cannot be wound on is refused by
// validate as by plan, naming the layer. The CLI's side is server/cli/winding-vessels.test.ts.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../bridge/testing/run-bridge.ts';
import { planToString } from '../../engine/plan/index.ts';
import { parseWindText } from '../../engine/wind/index.ts';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

const EXAMPLE = new URL('../../resources/examples/vessel.wind', import.meta.url).pathname;
const CARRIAGE = 'Layer 2: the carriage would travel to X 350.536 mm, beyond carriageMax 350.0 mm';

let base: string;
let allowed: string;
let ws: TestWorkstation;
let client: Client;
let text: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'towpath-vessel-doors-')));
  allowed = join(base, 'allowed');
  await mkdir(allowed);
  await mkdir(join(base, 'workstation'));
  await mkdir(join(base, 'data'));
  text = await readFile(EXAMPLE, 'utf8');
  ws = await startTestWorkstation({ WINDING_ALLOWED_ROOTS: allowed }, { root: join(base, 'workstation') });
  ({ client } = await connectMcp(process.execPath, ['server/mcp/sidecar.ts', 'mcp'], {
    TASK_HOST_URL: 'http://127.0.0.1:9',
    HOME: join(base, 'home'),
    TOWPATH_DATA_DIR: join(base, 'data'),
    WINDING_ALLOWED_ROOTS: allowed,
  }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await ws?.dispose();
  await rm(base, { recursive: true, force: true });
});

async function post(route: string, body: unknown) {
  const response = await fetch(`${ws.urls.winding}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function tool(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { isError: result.isError === true, body: JSON.parse(first?.type === 'text' ? first.text : '{}') };
}

const shorterCarriage = () => {
  const definition = JSON.parse(text);
  definition.machine.carriageMax = 350;
  return definition;
};

describe('a vessel through the winding door', () => {
  it('plans the example: the G-code is the engine’s, the answer carries the analysis', async () => {
    const input = join(allowed, 'vessel.wind');
    await writeFile(input, text);
    const { status, body } = await post('/plan/from-file', { path: input });
    expect(status).toBe(200);
    const engine = planToString(parseWindText(text, input));
    expect(await readFile(join(allowed, 'vessel.gcode'), 'utf8')).toBe(engine.gcode);
    expect(body).toEqual({
      commands: engine.summary.commands,
      output: join(allowed, 'vessel.gcode'),
      timeSeconds: engine.summary.timeSeconds,
      towMeters: engine.summary.towMeters,
      axisFormat: 'xab',
      layers: engine.summary.layers,
      analysis: JSON.parse(JSON.stringify(engine.summary.analysis)),
    });
    expect(body.analysis.layers[1].wind_type).toBe('geodesic');
    expect(body.analysis.layers[1].angle_deg).toHaveLength(body.analysis.z_mm.length);
  });

  it('refuses a carriage too short for the domes in validate as in plan', async () => {
    const input = join(allowed, 'short.wind');
    await writeFile(input, JSON.stringify(shorterCarriage()));
    expect(await post('/validate/from-file', { path: input })).toEqual({
      status: 400,
      body: { status: 'error', detail: CARRIAGE },
    });
    expect(await post('/plan/from-file', { path: input })).toEqual({
      status: 400,
      body: { detail: CARRIAGE },
    });
  });
});

describe('a vessel through the MCP tools', () => {
  it('plan_wind on an inline vessel answers the metrics with the analysis', async () => {
    const { isError, body } = await tool('plan_wind', { definition: JSON.parse(text) });
    expect(isError).toBe(false);
    const engine = planToString(parseWindText(text, '<inline definition>')).summary;
    expect(body.commands).toBe(engine.commands);
    expect(body.layers).toEqual(engine.layers);
    expect(body.analysis).toEqual(JSON.parse(JSON.stringify(engine.analysis)));
  });

  it('validate_wind and plan_wind refuse the short carriage alike', async () => {
    const definition = shorterCarriage();
    const validated = await tool('validate_wind', { definition });
    const planned = await tool('plan_wind', { definition });
    expect(validated).toEqual({ isError: true, body: { code: 'PLANNING_ERROR', message: CARRIAGE } });
    expect(planned).toEqual(validated);
  });
});
