// `towpath simulate` on a program larger than the winding door accepts (64 MiB): the CLI streams
// it through the simulator, so whatever `towpath plan` writes can be simulated.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { recordingIo } from '../testing/cli-io.ts';
import { makeTempDir } from '../testing/workstation.ts';
import { MAX_INPUT_BYTES } from '../winding/input-file.ts';
import { main } from './main.ts';

/** Back and forth along the carriage: every move is 100 mm, one second at F6000. */
const PAIR = 'G1 X100\nG1 X0\n';
const PAIRS_PER_BLOCK = 8192;

it('simulates a program above 64 MiB to the end, with the exact summary', async () => {
  const file = join(await makeTempDir(), 'large.gcode');
  const head = '; Parameters {"mandrel":{"diameter":70,"windLength":500}}\nG0 F6000\n';
  const block = Buffer.from(PAIR.repeat(PAIRS_PER_BLOCK));
  const blocks = Math.ceil((MAX_INPUT_BYTES + 1 - head.length) / block.length);
  const handle = await open(file, 'w');
  await handle.write(head);
  for (let i = 0; i < blocks; i++) await handle.write(block);
  const { size } = await handle.stat();
  await handle.close();
  expect(size).toBeGreaterThan(MAX_INPUT_BYTES);

  const io = recordingIo();
  expect(await main(['simulate', file, '--json'], io)).toBe(0);
  expect(io.err).toEqual([]);
  const moves = 2 * PAIRS_PER_BLOCK * blocks;
  const summary = JSON.parse(io.out.join(''));
  expect(summary).toMatchObject({
    commands: moves + 2,
    moves,
    total_distance_mm: 100 * moves,
    tow_length_mm: 100 * moves,
    average_feed_rate_mmpm: 6000,
  });
  // A second per move, summed in binary floating point over millions of moves.
  expect(Math.abs(summary.estimated_time_s - moves) / moves).toBeLessThan(1e-9);
}, 60_000);
