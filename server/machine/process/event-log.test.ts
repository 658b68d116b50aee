import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { EventLog } from './event-log.ts';

const state = (seq: number, value: 'completed' | 'idle'): MachineEvent =>
  ({ type: 'state', state: value, seq }) as MachineEvent;

describe('the machine event log', () => {
  it('ends with the last event even when a periodic write is still in flight at exit', async () => {
    const log = new EventLog(await makeTempDir());
    log.push(state(1, 'completed'));
    const periodic = log.flush();
    log.push(state(2, 'idle'));
    await log.close();
    await periodic;
    const lines = (await readFile(log.path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).state)).toEqual(['completed', 'idle']);
  });
});
