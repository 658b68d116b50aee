// `towpath stream` writes the job history too: with no machine process on the data dir, the job is
// recorded from the command itself (a real SQLite file, the fake Marlin on a pty pair), under the
// file's name; with no data dir it streams without one.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobHistory } from '../machine/process/job-history.ts';
import { openMachineDatabase } from '../machine/process/machine-db.ts';
import { attachFakeMarlin } from '../machine/testing/fake-marlin-port.ts';
import { createPtyPair } from '../machine/testing/pty-pair.ts';
import { recordingIo } from '../testing/cli-io.ts';
import { makeTempDir, removeTempDir } from '../testing/workstation.ts';
import { main } from './main.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function setUp() {
  const pair = await createPtyPair();
  cleanups.push(() => pair.dispose());
  const onPort = await attachFakeMarlin(pair.far);
  cleanups.push(() => onPort.close());
  const root = await makeTempDir();
  cleanups.push(() => removeTempDir(root));
  const file = join(root, 'mandrel-7.gcode');
  await writeFile(file, Array.from({ length: 25 }, (_, i) => `G0 X${i} A${i * 10}`).join('\n'));
  return { pair, root, file };
}

describe('towpath stream and the job history', () => {
  it('records the job in the data dir when no machine process runs there', async () => {
    const { pair, root, file } = await setUp();
    const io = {
      ...recordingIo(),
      env: { TOWPATH_DATA_DIR: root },
      machine: { timings: { bootIdleMs: 50 } },
    };
    expect(await main(['stream', file, '--port', pair.near, '--json'], io)).toBe(0);
    const database = openMachineDatabase(root);
    try {
      expect(new JobHistory(database).list({ limit: 10 })).toEqual([
        expect.objectContaining({
          program: 'mandrel-7.gcode',
          // The file's own fingerprint: the command streams the file's text, not just its commands.
          sha256: createHash('sha256')
            .update(await readFile(file))
            .digest('hex'),
          port: pair.near,
          total: 25,
          acknowledged: 25,
          lastAcknowledgedLine: 25,
          outcome: 'completed',
        }),
      ]);
    } finally {
      database.close();
    }
  });

  it('streams without a history when the data dir does not exist', async () => {
    const { pair, root, file } = await setUp();
    const missing = join(root, 'no-such-dir');
    const io = {
      ...recordingIo(),
      env: { TOWPATH_DATA_DIR: missing },
      machine: { timings: { bootIdleMs: 50 } },
    };
    expect(await main(['stream', file, '--port', pair.near, '--json'], io)).toBe(0);
    expect(JSON.parse(io.out.join('').trim())).toMatchObject({ status: 'completed', commands: 25 });
  });
});
