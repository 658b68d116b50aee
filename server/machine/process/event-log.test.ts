import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { makeTempDir } from '../../testing/workstation.ts';
import { EVENT_LOG_SIZE, EventLog } from './event-log.ts';

const state = (seq: number, value: 'completed' | 'idle'): MachineEvent =>
  ({ type: 'state', state: value, seq }) as MachineEvent;
const log = (seq: number): MachineEvent => ({ type: 'log', direction: 'rx', text: `echo:${seq}`, seq });
const progress = (seq: number, acknowledged: number): MachineEvent => ({
  type: 'progress',
  seq,
  sent: acknowledged,
  acknowledged,
  total: 100,
  line: acknowledged,
  sourceLine: acknowledged,
  command: 'G0 X1',
  elapsed_s: 0,
  remaining_s: 0,
});

async function written(log: EventLog): Promise<MachineEvent[]> {
  await log.close();
  return (await readFile(log.path, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as MachineEvent);
}

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

  it('keeps the last 1,000 events, oldest first', async () => {
    const events = new EventLog(await makeTempDir());
    for (let seq = 1; seq <= 2500; seq++) events.push(log(seq));
    const seqs = (await written(events)).map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: EVENT_LOG_SIZE }, (_, i) => 1501 + i));
  });

  it('keeps a run of progress events as its latest, between the events around it', async () => {
    const events = new EventLog(await makeTempDir());
    events.push(log(1));
    for (let seq = 2; seq <= 101; seq++) events.push(progress(seq, seq - 1));
    events.push(state(102, 'completed'));
    events.push(progress(103, 100));
    const kept = await written(events);
    expect(kept.map((event) => event.seq)).toEqual([1, 101, 102, 103]);
    expect(kept[1]).toMatchObject({ type: 'progress', acknowledged: 100 });
  });
});
