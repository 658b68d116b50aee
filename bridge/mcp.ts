// `towpath-bridge mcp`: the 16 operations as MCP tools over stdio (spec §9), on the SDK's low-level
// Server so that unknown tools and bad arguments get the bridge's own error results.
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type BridgeEnv, parseHostSettings } from './config.ts';
import { BridgeError, errorLine, toBridgeError } from './errors.ts';
import { HostClient } from './host.ts';
import { truncationNote } from './lists.ts';
import {
  BY_TOOL,
  DELETE_REFUSAL,
  OPERATIONS,
  type Operation,
  type OperationResult,
  runOperation,
} from './operations.ts';
import { VERSION } from './version.ts';

const MCP_DEFAULT_LIMIT = 20;

/** A tool's JSON Schema (§9): draft 7 without `$schema`; `io: 'input'` leaves defaulted fields optional. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Tool['inputSchema'] {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<
    string,
    unknown
  >;
  return rest as Tool['inputSchema'];
}

/**
 * Tools a combined server lists after the 16 (the workstation's winding tools live in server/mcp/;
 * the bridge only knows this shape, so it never imports the server).
 */
export interface ExtraTools {
  tools: Tool[];
  /** Answers a call to one of `tools`; undefined for any other name. */
  call(name: string, args: unknown): Promise<CallToolResult> | undefined;
}

export function toolList(): Tool[] {
  return OPERATIONS.map((op) => ({
    name: op.tool,
    title: op.title,
    description: op.description,
    inputSchema: jsonSchema(op.input),
    outputSchema: jsonSchema(op.output) as Tool['outputSchema'],
    annotations: {
      readOnlyHint: op.readOnly,
      destructiveHint: false,
      idempotentHint: op.idempotent,
      openWorldHint: false,
    },
  }));
}

export function errorResult(error: BridgeError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toJSON()) }] };
}

function successResult(op: Operation, result: OperationResult): CallToolResult {
  if (result.kind === 'list') {
    const { page } = result;
    const structured: Record<string, unknown> = { items: page.items };
    if (page.truncated)
      Object.assign(structured, { truncated: true, returned: page.items.length, matched: page.matched });
    const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(structured) }];
    if (page.truncated) content.push({ type: 'text', text: truncationNote(page) });
    return { structuredContent: structured, content };
  }
  const structured = (op.shape === 'current' ? { task: result.data } : result.data) as Record<
    string,
    unknown
  >;
  return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
}

/** Runs one tools/call: every failure, ours or the host's, becomes an error result (§5.4). */
export async function callTool(name: string, args: unknown, client: HostClient): Promise<CallToolResult> {
  if (name === 'delete_task') return errorResult(new BridgeError('UNSUPPORTED_OPERATION', DELETE_REFUSAL));
  const op = BY_TOOL.get(name);
  if (!op) return errorResult(new BridgeError('UNKNOWN_OPERATION', `Unknown tool: ${name}`));
  try {
    // Absent arguments mean {} (§5.3); null or any other non-object is INVALID_INPUT.
    const input = args === undefined ? {} : args;
    return successResult(op, await runOperation(op, input, { client, defaultLimit: MCP_DEFAULT_LIMIT }));
  } catch (error) {
    return errorResult(toBridgeError(error));
  }
}

// Looser than the SDK's CallToolRequestSchema on purpose: arguments that are not an object must
// reach the handler to be answered as INVALID_INPUT, not as a JSON-RPC error.
const CallToolRequest = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

export function createMcpServer(client: HostClient, extra?: ExtraTools): Server {
  const server = new Server({ name: 'towpath-bridge', version: VERSION }, { capabilities: { tools: {} } });
  const tools = [...toolList(), ...(extra?.tools ?? [])];
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  // Server.setRequestHandler would validate tools/call with the SDK's strict schema first; the
  // base Protocol registration skips that (results are still ours to keep well-formed).
  const register = Protocol.prototype.setRequestHandler as (
    this: Server,
    schema: typeof CallToolRequest,
    handler: (request: z.infer<typeof CallToolRequest>) => Promise<CallToolResult>,
  ) => void;
  register.call(
    server,
    CallToolRequest,
    (request) =>
      extra?.call(request.params.name, request.params.arguments) ??
      callTool(request.params.name, request.params.arguments, client),
  );
  return server;
}

export interface McpOptions {
  env: BridgeEnv;
  stderr: (text: string) => void;
  /** The combined server's further tools; a failure to make them (a BridgeError) stops the start. */
  extraTools?: ((env: BridgeEnv) => Promise<ExtraTools>) | undefined;
}

/** Serves until stdin closes; resolves with the exit code. */
export async function runMcpServer(options: McpOptions): Promise<number> {
  let client: HostClient;
  let extra: ExtraTools | undefined;
  // Keep-alive to the host: an assistant makes many small calls in a row.
  const agent = new http.Agent({ keepAlive: true });
  try {
    client = new HostClient(parseHostSettings(options.env), options.env, { agent });
    extra = await options.extraTools?.(options.env);
  } catch (error) {
    agent.destroy();
    options.stderr(errorLine(error));
    return 2;
  }
  const server = createMcpServer(client, extra);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport());
  options.stderr(`towpath-bridge ${VERSION} serving MCP on stdio (host ${client.settings.url})\n`);
  await closed;
  await server.close();
  agent.destroy();
  return 0;
}
