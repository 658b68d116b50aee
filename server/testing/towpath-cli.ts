// Test support: the `towpath` command run in-process, and the refusal every planning error shares.
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { main } from '../cli/main.ts';
import { recordingIo } from './cli-io.ts';

/** Runs `towpath <argv>` in this process; its exit code and what it printed. */
export async function towpath(...argv: string[]) {
  const io = recordingIo();
  const code = await main(argv, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

/**
 * `validate` and `plan` refuse `input` alike: exit 1, the planner's `detail` on stdout as JSON and
 * on stderr, and nothing written beside the input.
 */
export async function expectRefusedByPlanAndValidate(input: string, detail: string): Promise<void> {
  const stderr = `towpath: ${detail}\n`;
  expect(await towpath('validate', input, '--json')).toEqual({
    code: 1,
    stdout: `${JSON.stringify({ status: 'error', detail })}\n`,
    stderr,
  });
  expect(await towpath('plan', input, '--json')).toEqual({
    code: 1,
    stdout: `${JSON.stringify({ detail })}\n`,
    stderr,
  });
  expect(await readdir(dirname(input))).toEqual(['input.wind']);
}
