// The workstation's four MCP tools (docs/mcp.md; the sidecar's combined server lists them after the
// 16 task tools of spec/task-bridge.md §9): validate_wind, plan_wind, simulate_gcode and
// machine_status. The first three run the winding door's own from-file operations (same path
// policy, reading and output rules, atomic write) and answer its bodies; machine_status asks the
// running workstation. Nothing here moves the machine.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BridgeError } from '../../bridge/errors.ts';
import { type ExtraTools, errorResult, jsonSchema } from '../../bridge/mcp.ts';
import { PlanningError, SimulationError, WindFileError } from '../../engine/errors.ts';
import { MACHINE_ROUTES } from '../../engine/machine/contract.ts';
import { parseWindText, type WindDefinition } from '../../engine/wind/index.ts';
import { HttpError } from '../http/http-error.ts';
import type { WindingContext } from '../winding/context.ts';
import { planFromFile, simulateFromFile, validateFromFile } from '../winding/from-file.ts';
import { MAX_INPUT_BYTES } from '../winding/input-file.ts';
import { checkPlanInSlices, OutputError, planResponse } from '../winding/planning.ts';
import {
  PathRequest,
  PlanRequest,
  PlanResponse,
  SimulateResponse,
  ValidateResponse,
} from '../winding/schemas.ts';
import { readWorkstationFile } from '../workstation-file.ts';

export type WindingToolCode =
  | 'INVALID_INPUT'
  | 'FILE_ERROR'
  | 'PLANNING_ERROR'
  | 'SIMULATION_ERROR'
  | 'PATH_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'WORKSTATION_NOT_RUNNING';

/** A tool failure: `{code, message}` with the winding door's detail as the message. */
class ToolFailure extends Error {
  readonly code: WindingToolCode;
  constructor(code: WindingToolCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const NOT_RUNNING = 'No Towpath workstation is running on this PC';

/** How inline definitions are named in messages (a file's are named by their path). */
export const INLINE_NAME = '<inline definition>';

export interface WindingToolsContext extends WindingContext {
  /** The data folder by the core's rules, where a running workstation leaves workstation.json. */
  dataDir: string;
  /** How long machine_status waits for the workstation's answer. */
  statusTimeoutMs?: number;
}

// Inputs: the door's own fields; `definition` is the `.wind` document itself.
const definition = z.record(z.string(), z.unknown());
const source = { path: PathRequest.shape.path.optional(), definition: definition.optional() };
const ValidateInput = z.strictObject(source);
const PlanInput = z.strictObject({
  ...source,
  axis_format: PlanRequest.shape.axis_format,
  verbose: PlanRequest.shape.verbose,
});
const SimulateInput = PathRequest.strict();
const StatusInput = z.strictObject({});

// Outputs: the door's bodies; the inline forms leave out what only a file has.
const ValidateOutput = ValidateResponse.extend({ path: ValidateResponse.shape.path.optional() });
// A vessel's analysis is listed by its name only: its full shape (docs/winding-vessels.md, and the
// door's OpenAPI) would take the tools list past its byte budget.
const PlanOutput = PlanResponse.extend({
  output: PlanResponse.shape.output.optional(),
  analysis: z.record(z.string(), z.unknown()).optional(),
});
const MachineStatusOutput = z.looseObject({ state: z.string() });

interface WindingTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  output: z.ZodType;
  readOnly: boolean;
  run(input: never, context: WindingToolsContext): Promise<Record<string, unknown>>;
}

const TOOLS: WindingTool[] = [
  {
    name: 'validate_wind',
    title: 'Validate winding definition',
    description:
      'Check a .wind definition (schema and planning); writes nothing. Give exactly one of path (absolute) or definition (.wind JSON).',
    input: ValidateInput,
    output: ValidateOutput,
    readOnly: true,
    run: async (input: z.output<typeof ValidateInput>, context) => {
      const wind = windSource(input);
      if ('path' in wind) return validateFromFile(wind, context);
      await context.planners.run(() => checkPlanInSlices(wind.inline));
      return { status: 'ok' };
    },
  },
  {
    name: 'plan_wind',
    title: 'Plan winding definition',
    description:
      'Plan a .wind definition into G-code. path (absolute): writes <name>.gcode beside it, replacing it; returns metrics and output. definition: metrics only.',
    input: PlanInput,
    output: PlanOutput,
    readOnly: false,
    run: async (input: z.output<typeof PlanInput>, context) => {
      const wind = windSource(input);
      if ('path' in wind)
        return planFromFile({ ...wind, axis_format: input.axis_format, verbose: input.verbose }, context);
      const summary = await context.planners.run(() =>
        checkPlanInSlices(wind.inline, { axisFormat: input.axis_format, verbose: input.verbose }),
      );
      const { output: _none, ...metrics } = planResponse(summary, '');
      return metrics;
    },
  },
  {
    name: 'simulate_gcode',
    title: 'Simulate G-code',
    description:
      'Simulate a G-code file (absolute path): commands, moves, time, distance, tow and feed rate.',
    input: SimulateInput,
    output: SimulateResponse,
    readOnly: true,
    run: async (input: z.output<typeof SimulateInput>, context) => ({
      ...(await simulateFromFile(input, context)),
    }),
  },
  {
    name: 'machine_status',
    title: 'Machine status',
    description: 'Status of the winding machine from the Towpath workstation on this PC.',
    input: StatusInput,
    output: MachineStatusOutput,
    readOnly: true,
    run: async (_input: z.output<typeof StatusInput>, context) => machineStatus(context),
  },
];

/** Exactly one source: a path for the door's rules, or an inline definition parsed as a file's text is. */
function windSource(input: {
  path?: string | undefined;
  definition?: Record<string, unknown> | undefined;
}): { path: string } | { inline: WindDefinition } {
  if (input.definition === undefined && input.path !== undefined) return { path: input.path };
  if (input.definition === undefined || input.path !== undefined)
    throw new ToolFailure('INVALID_INPUT', 'arguments: give exactly one of path or definition');
  const text = JSON.stringify(input.definition);
  if (text.length > MAX_INPUT_BYTES)
    throw new ToolFailure('INVALID_INPUT', 'definition: is larger than 64 MB');
  return { inline: parseWindText(text, INLINE_NAME) };
}

async function machineStatus(context: WindingToolsContext): Promise<Record<string, unknown>> {
  const workstation = await readWorkstationFile(context.dataDir);
  if (!workstation) throw new ToolFailure('WORKSTATION_NOT_RUNNING', NOT_RUNNING);
  try {
    const response = await fetch(`${workstation.lanUrl}${MACHINE_ROUTES.status}`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(context.statusTimeoutMs ?? 5_000),
    });
    const body: unknown = await response.json();
    if (response.ok && MachineStatusOutput.safeParse(body).success) return body as Record<string, unknown>;
  } catch {
    // refused, reset, timed out or not JSON: nobody answering is no workstation
  }
  throw new ToolFailure('WORKSTATION_NOT_RUNNING', NOT_RUNNING);
}

/** The door's failure as the tools report it: its detail, under the code of its kind. */
export function toToolFailure(error: unknown): ToolFailure | undefined {
  if (error instanceof ToolFailure) return error;
  if (error instanceof WindFileError)
    return new ToolFailure(error.missing ? 'NOT_FOUND' : 'FILE_ERROR', error.message);
  if (error instanceof SimulationError) {
    const code = error.missing ? 'NOT_FOUND' : error.unreadable ? 'FILE_ERROR' : 'SIMULATION_ERROR';
    return new ToolFailure(code, error.message);
  }
  if (error instanceof PlanningError) return new ToolFailure('PLANNING_ERROR', error.message);
  if (error instanceof OutputError) return new ToolFailure('FILE_ERROR', error.message);
  if (error instanceof HttpError) {
    // Path rules 1–3 are bad arguments; rule 4 and the output's roots are 403.
    return new ToolFailure(error.status === 403 ? 'PATH_NOT_ALLOWED' : 'INVALID_INPUT', error.message);
  }
  return undefined;
}

/** The first problem as `<field>: <the door's message>` (unknown fields are refused by name). */
function argumentProblem(error: z.ZodError): string {
  const [issue] = error.issues;
  if (issue?.code === 'unrecognized_keys') return `${issue.keys[0]}: unknown field`;
  return `${issue?.path.join('.') || 'arguments'}: ${issue?.message}`;
}

function failure(error: ToolFailure): CallToolResult {
  return errorResult(new BridgeError(error.code, error.message));
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A schema as §9 lists it: no field descriptions or titles (the door's schemas carry them for
 * /openapi.json), no bounds that only restate JavaScript's safe integers, no `propertyNames` that
 * only says keys are strings. Keeps `tools/list` inside its budget.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' || key === 'title') continue;
    if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    out[key] = key === 'properties' ? mapValues(value as Record<string, unknown>) : compact(value);
  }
  return out;
}

/** Property names are data, not keywords: `title` or `description` as a field name stays. */
function mapValues(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, compact(value)]));
}

/** The four tools for a combined MCP server (bridge/mcp.ts' ExtraTools). */
export function windingTools(context: WindingToolsContext): ExtraTools {
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const tools: Tool[] = TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: compact(jsonSchema(tool.input, 'input')) as Tool['inputSchema'],
    outputSchema: compact(jsonSchema(tool.output)) as Tool['outputSchema'],
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: !tool.readOnly,
      idempotentHint: true,
      openWorldHint: false,
    },
  }));
  return {
    tools,
    call(name, args) {
      const tool = byName.get(name);
      if (!tool) return undefined;
      return (async () => {
        const parsed = tool.input.safeParse(args === undefined ? {} : args);
        if (!parsed.success) return failure(new ToolFailure('INVALID_INPUT', argumentProblem(parsed.error)));
        try {
          const body = await tool.run(parsed.data as never, context);
          return { structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
        } catch (error) {
          const known = toToolFailure(error);
          if (known) return failure(known);
          return errorResult(new BridgeError('INTERNAL_ERROR', 'Unexpected bridge error'));
        }
      })();
    },
  };
}
