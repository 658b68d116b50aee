// /openapi.json, generated from the same zod schemas that validate the requests.
import { z } from 'zod';
import { VERSION } from '../../bridge/version.ts';
import type { Examples } from './examples.ts';
import {
  ErrorBody,
  PathRequest,
  PlanRequest,
  PlanResponse,
  SimulateResponse,
  StreamRequest,
  StreamResponse,
  ValidateError,
  ValidateResponse,
} from './schemas.ts';

type Schema = z.ZodType;

function jsonSchema(schema: Schema, io: 'input' | 'output') {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const json = (schema: Schema, io: 'input' | 'output', example?: unknown) => ({
  'application/json': { schema: jsonSchema(schema, io), ...(example === undefined ? {} : { example }) },
});

const STATUS_TEXT: Record<number, string> = {
  200: 'Success',
  400: 'Invalid request body, path, file content or program',
  403: 'Input or output outside the allowed roots',
  404: 'Input file not found',
  405: 'Method not allowed on this route',
  409: 'The machine is busy or connected to another port',
  413: 'Request body larger than 10 MB',
  502: 'Streaming failed',
};

function responses(success: Schema, errors: number[], errorSchema: Schema = ErrorBody, example?: unknown) {
  return {
    200: { description: STATUS_TEXT[200], content: json(success, 'output', example) },
    ...Object.fromEntries(
      errors.map((status) => [
        status,
        { description: STATUS_TEXT[status], content: json(errorSchema, 'output') },
      ]),
    ),
  };
}

function operation(
  operationId: string,
  summary: string,
  description: string,
  request: Schema,
  example: unknown,
  response: ReturnType<typeof responses>,
) {
  return {
    post: {
      operationId,
      summary,
      description,
      requestBody: { required: true, content: json(request, 'input', example) },
      responses: response,
    },
  };
}

export function buildOpenApi(examples: Examples) {
  const stream = operation(
    'stream',
    'Stream G-code to the machine',
    'Dry run (default): validates the program and counts its commands without opening any port. Live: ' +
      'streams through the workstation’s one machine controller and returns when the job ends.',
    StreamRequest,
    { gcode: examples.program, dry_run: true },
    responses(StreamResponse, [400, 405, 409, 413, 502], ErrorBody, {
      commands_streamed: 4,
      total_commands: 4,
      dry_run: true,
    }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Towpath winding service',
      version: VERSION,
      description:
        'Plans `.wind` definitions into G-code, simulates and validates programs, and streams them to the ' +
        'machine. Paths must be absolute and lie under WINDING_ALLOWED_ROOTS.',
    },
    paths: {
      '/plan/from-file': operation(
        'plan_from_file',
        'Plan a .wind file into G-code',
        'Writes `<input name>.gcode` next to the input, atomically, and returns the plan metrics.',
        PlanRequest,
        { path: examples.wind, axis_format: 'xab', verbose: false },
        responses(PlanResponse, [400, 403, 404, 405, 413], ErrorBody, examples.responses.plan),
      ),
      '/simulate/from-file': operation(
        'simulate_from_file',
        'Simulate a G-code file',
        'Estimated time, distance and tow of a program under the nominal machine model.',
        PathRequest,
        { path: examples.gcode },
        responses(SimulateResponse, [400, 403, 404, 405, 413], ErrorBody, examples.responses.simulate),
      ),
      '/validate/from-file': operation(
        'validate_from_file',
        'Validate a .wind file (schema and planning)',
        'A file that validates also plans. Failures answer `{status: "error", detail}`.',
        PathRequest,
        { path: examples.wind },
        responses(ValidateResponse, [400, 403, 404, 405, 413], ValidateError, {
          status: 'ok',
          path: examples.wind,
        }),
      ),
      '/stream/': stream,
      '/stream': stream,
    },
  };
}
