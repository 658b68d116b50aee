import { MachineError, PlanningError, SimulationError, WindFileError } from '../../engine/errors.ts';
import { MachineStateError } from '../../engine/machine/errors.ts';
import { ProgramError } from '../../engine/machine/program.ts';
import { OutputError } from '../winding/planning.ts';

/** A failure with the status and `detail` the winding door answers (spec/winding.md §7.4). */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

/** The one place where engine errors become HTTP statuses. Anything else is not ours to map. */
export function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof WindFileError || error instanceof SimulationError) {
    return new HttpError(error.missing ? 404 : 400, error.message);
  }
  if (error instanceof PlanningError || error instanceof ProgramError || error instanceof OutputError)
    return new HttpError(400, error.message);
  if (error instanceof MachineStateError) return new HttpError(409, error.message);
  if (error instanceof MachineError) return new HttpError(502, `Streaming failed: ${error.message}`);
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new HttpError(413, 'Request body is larger than 10 MB');
  // fastify refuses an empty or malformed Content-Type header before any parser runs.
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_ERR_CTP_INVALID_TYPE') {
    return new HttpError(400, 'Invalid request body: Content-Type must be application/json');
  }
  return undefined;
}
