// MCP end to end (spec §9, §10): the SDK's Client starts the real `towpath-bridge mcp` over stdio.
import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../server/testing/process.ts';
import { type FakeHost, startFakeHost } from './fake-host/server.ts';
import { connectMcp } from './testing/run-bridge.ts';

const TOKEN = 'mcp-token';
const ANNOTATIONS: Record<string, [boolean, boolean]> = {
  health: [true, true],
  get_status: [true, true],
  list_tasks: [true, true],
  get_task: [true, true],
  create_task: [false, false],
  update_task: [false, true],
  complete_task: [false, true],
  uncomplete_task: [false, true],
  start_task: [false, true],
  stop_current_task: [false, true],
  get_current_task: [true, true],
  set_current_task: [false, true],
  archive_task: [false, false],
  restore_task: [false, false],
  list_projects: [true, true],
  list_tags: [true, true],
};

function parsed(result: Awaited<ReturnType<Client['callTool']>>) {
  const content = result.content as { type: string; text: string }[];
  return JSON.parse(content[0]?.text ?? '') as Record<string, unknown>;
}

describe('towpath-bridge mcp', () => {
  let host: FakeHost;
  let session: Awaited<ReturnType<typeof connectMcp>>;

  beforeAll(async () => {
    host = await startFakeHost({ version: '18.17.0', token: TOKEN, seed: 'clean' });
    session = await connectMcp(process.execPath, ['bridge/cli.ts', 'mcp'], {
      TASK_HOST_URL: host.url,
      TASK_HOST_TOKEN: TOKEN,
      HOME: '/nonexistent',
    });
  });
  afterAll(async () => {
    await session.client.close();
    await host.close();
  });

  it('introduces itself and lists exactly the 16 tools with strict schemas and annotations', async () => {
    const { client } = session;
    expect(client.getServerVersion()?.name).toBe('towpath-bridge');
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(Object.keys(ANNOTATIONS));
    expect(JSON.stringify(list).length).toBeLessThanOrEqual(12_288);
    for (const tool of list.tools) {
      const [readOnlyHint, idempotentHint] = ANNOTATIONS[tool.name] ?? [];
      expect(tool.annotations).toEqual({
        readOnlyHint,
        destructiveHint: false,
        idempotentHint,
        openWorldHint: false,
      });
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(tool.title).toEqual(expect.any(String));
    }
  });

  it('calls every tool once: structured content matches the output schema and the text', async () => {
    const { client } = session;
    const calls: [string, Record<string, unknown>][] = [
      ['health', {}],
      ['get_status', {}],
      ['list_tasks', {}],
      ['get_task', { id: 't1' }],
      ['create_task', { title: 'From MCP', timeEstimate: 3_600_000 }],
      ['update_task', { id: 't3', notes: 'hello' }],
      ['complete_task', { id: 't3' }],
      ['uncomplete_task', { id: 't3' }],
      ['start_task', { id: 't3' }],
      ['get_current_task', {}],
      ['stop_current_task', {}],
      ['set_current_task', { taskId: 't1' }],
      ['archive_task', { id: 't2' }],
      ['restore_task', { id: 't2' }],
      ['list_projects', {}],
      ['list_tags', {}],
    ];
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args }); // the Client checks outputSchema
      expect(result.isError, name).toBeFalsy();
      expect(result.structuredContent, name).toEqual(parsed(result));
    }
    expect(host.store.active.get('t3')?.notes).toBe('hello');
    expect(host.store.currentTaskId).toBe('t1');
    expect(session.transportErrors).toEqual([]);
  });

  it('answers failures as error results with a documented code', async () => {
    const { client } = session;
    const cases: [string, unknown, string][] = [
      ['no_such_tool', {}, 'UNKNOWN_OPERATION'],
      ['delete_task', { id: 't1' }, 'UNSUPPORTED_OPERATION'],
      ['get_task', { id: 42 }, 'INVALID_INPUT'],
      ['list_tasks', { limit: 0 }, 'INVALID_INPUT'],
      ['get_task', { id: 'missing' }, 'TASK_NOT_FOUND'],
    ];
    for (const [name, args, code] of cases) {
      const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
      expect(result.isError, name).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(parsed(result)).toMatchObject({ code, message: expect.any(String) });
    }
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(parsed(unknown)).toEqual({ code: 'UNKNOWN_OPERATION', message: 'Unknown tool: no_such_tool' });
    const arrayArgs = await client.request(
      {
        method: 'tools/call',
        params: { name: 'get_task', arguments: ['t1'] as unknown as Record<string, unknown> },
      },
      CallToolResultSchema,
    );
    expect(parsed(arrayArgs)).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'arguments: must be an object',
    });
    host.inject({ method: 'GET', path: '/status', fault: { type: 'reset' } });
    expect(parsed(await client.callTool({ name: 'get_status', arguments: {} }))).toMatchObject({
      code: 'APP_UNAVAILABLE',
    });
  });

  it('serves concurrent calls over one connection', async () => {
    const ids = ['t1', 't3', 't1a', 't1', 't3', 't1a', 't1', 't3'];
    const results = await Promise.all(
      ids.map((id) => session.client.callTool({ name: 'get_task', arguments: { id } })),
    );
    expect(results.map((r) => (r.structuredContent as { id: string }).id)).toEqual(ids);
  });

  it('writes only JSON-RPC on stdout and exits 0 soon after stdin closes; bad configuration exits 2', async () => {
    const child = spawn(process.execPath, ['bridge/cli.ts', 'mcp'], {
      cwd: REPO_ROOT,
      env: { ...process.env, TASK_HOST_URL: host.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    const closedAt = Date.now();
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(Date.now() - closedAt).toBeLessThan(5000);
    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'towpath-bridge' } },
    });

    const bad = spawn(process.execPath, ['bridge/cli.ts', 'mcp'], {
      cwd: REPO_ROOT,
      env: { ...process.env, TASK_HOST_URL: 'ftp://x' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let badOut = '';
    bad.stdout.on('data', (chunk: Buffer) => {
      badOut += chunk.toString();
    });
    expect(await new Promise((resolve) => bad.on('exit', resolve))).toBe(2);
    expect(badOut).toBe('');
  });
});
