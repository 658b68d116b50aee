// The bridge's error value (spec §5): every failure, from validation to the host, ends up as one of
// these so the CLI and the MCP server can render it the same way.
import type { z } from 'zod';

export type ErrorCode =
  | 'APP_UNAVAILABLE'
  | 'UNAUTHORIZED'
  | 'TIMEOUT'
  | 'UNKNOWN_OPERATION'
  | 'UNSUPPORTED_OPERATION'
  | 'INVALID_INPUT'
  | 'TASK_NOT_FOUND'
  | 'NOT_FOUND'
  | 'PROJECT_NOT_FOUND'
  | 'APP_ERROR'
  | 'INTERNAL_ERROR'
  // Host codes pass through unchanged, so the set is open.
  | (string & {});

export class BridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'BridgeError';
    this.code = code;
    this.details = details;
  }

  /** The wire form shared by the CLI's stderr line and the MCP error result. */
  toJSON(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export interface InputIssue {
  path: string;
  message: string;
}

export function invalidInput(issues: InputIssue[]): BridgeError {
  const [first] = issues;
  const message = first ? `${first.path}: ${first.message}` : 'input: invalid';
  return new BridgeError('INVALID_INPUT', message, { issues });
}

/** INVALID_INPUT for one field, worded `<field>: <problem>` unless the caller has a fuller `text`. */
export function invalidField(path: string, message: string, text = `${path}: ${message}`): BridgeError {
  return new BridgeError('INVALID_INPUT', text, { issues: [{ path, message }] });
}

/** Turns zod's issues into `<field>: <problem>` with the field named even for unknown keys. */
export function issuesFromZod(error: z.ZodError): InputIssue[] {
  const issues: InputIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        issues.push({ path: path ? `${path}.${key}` : key, message: 'unknown field' });
    } else if (issue.code === 'invalid_type' && issue.input === undefined && path) {
      issues.push({ path, message: 'is required' });
    } else if (!path && issue.code === 'invalid_type') {
      issues.push({ path: 'arguments', message: 'must be an object' });
    } else {
      issues.push({ path: path || 'arguments', message: issue.message });
    }
  }
  return issues;
}

/** Anything that is not already a BridgeError becomes INTERNAL_ERROR without its stack or text. */
export function toBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  return new BridgeError('INTERNAL_ERROR', 'Unexpected bridge error');
}

/** The one-line error report on stderr (spec §5.4) that the CLI, doctor and `mcp` write. */
export function errorLine(error: unknown): string {
  return `${JSON.stringify({ error: toBridgeError(error).toJSON() })}\n`;
}
