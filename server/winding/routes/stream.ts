import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MachineError } from '../../../engine/errors.ts';
import { prepareProgram } from '../../../engine/machine/program.ts';
import { HttpError } from '../../http/http-error.ts';
import type { MachineLink } from '../../machine/link.ts';
import { readBody } from '../body.ts';
import { StreamRequest } from '../schemas.ts';

/**
 * `POST /stream/` (and `/stream`): a dry run validates and counts; a live run goes to the machine
 * process (its one controller) and answers when the job ends. The job is not aborted if the client leaves:
 * the handler waits for the job either way.
 */
export async function streamRoute(
  app: FastifyInstance,
  { machine }: { machine: Pick<MachineLink, 'stream'> },
) {
  const handler = async (request: FastifyRequest) => {
    const body = readBody(request, StreamRequest);
    if (body.gcode.trim() === '') throw new HttpError(400, 'G-code program contained no commands');
    const port = body.port?.trim() ?? '';
    if (!body.dry_run && port === '') throw new HttpError(400, 'port is required when dry_run is false');
    // A NUL ends the path at the system call and opens another device.
    if (port.includes('\0'))
      throw new HttpError(400, 'Invalid request body: port: must not contain NUL characters');
    const program = prepareProgram(body.gcode);
    if (body.dry_run)
      return { commands_streamed: program.total, total_commands: program.total, dry_run: true };

    const outcome = await machine.stream(body.gcode, port, body.baud_rate);
    if (outcome.status === 'error')
      throw new MachineError(outcome.error?.message ?? 'the job ended in error');
    return { commands_streamed: outcome.acknowledged, total_commands: outcome.total, dry_run: false };
  };
  app.post('/stream/', handler);
  app.post('/stream', handler);
}
