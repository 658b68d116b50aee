// How a job's end reads in the history: the controller's own ending (an e-stop, an abort, a shut
// down) decides first, then the error's kind (the controller gone or silent, or refusing a line).
import { describe, expect, it } from 'vitest';
import { MachineError } from '../../../engine/errors.ts';
import type { JobOutcome } from '../../../engine/machine/types.ts';
import { outcomeOf } from './job-recording.ts';

const ended = (status: JobOutcome['status'], message?: string): JobOutcome => ({
  status,
  sent: 10,
  acknowledged: 9,
  total: 100,
  elapsed_s: 1,
  ...(message ? { error: new MachineError(message) } : {}),
});

describe('a job outcome in the history', () => {
  it('names each way a job ends', () => {
    const cases: [JobOutcome, Parameters<typeof outcomeOf>[1], string, string | null][] = [
      [ended('completed'), undefined, 'completed', null],
      [ended('cancelled'), undefined, 'cancelled', 'Cancelled by the operator'],
      [ended('cancelled'), 'shut down', 'cancelled', 'The machine process shut down during the job'],
      [ended('error', 'Emergency stop'), 'e-stopped', 'e-stopped', 'Emergency stop'],
      [
        ended('error', 'Aborted while line 10 was in flight'),
        'aborted',
        'cancelled',
        'Aborted while line 10 was in flight',
      ],
      [
        ended('error', 'Serial port /dev/ttyUSB0 closed: unplugged'),
        undefined,
        'controller lost',
        'Serial port /dev/ttyUSB0 closed: unplugged',
      ],
      [
        ended('error', 'No response from the controller within 30 s (waiting for line 10)'),
        undefined,
        'controller lost',
        'No response from the controller within 30 s (waiting for line 10)',
      ],
      [
        ended('error', "Controller restarted during the job (it sent 'start'); the job was aborted"),
        undefined,
        'controller lost',
        "Controller restarted during the job (it sent 'start'); the job was aborted",
      ],
      [
        ended('error', 'Controller error: Printer halted. kill() called!'),
        undefined,
        'failed',
        'Controller error: Printer halted. kill() called!',
      ],
      [
        ended('error', 'Controller requested a resend of line 4, but line 10 is the one in flight'),
        undefined,
        'failed',
        'Controller requested a resend of line 4, but line 10 is the one in flight',
      ],
    ];
    for (const [outcome, ending, name, reason] of cases) {
      expect(outcomeOf(outcome, ending)).toEqual({ outcome: name, reason });
    }
  });
});
