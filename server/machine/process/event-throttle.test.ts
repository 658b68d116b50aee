import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/machine/clock.ts';
import type { MachineEvent } from '../../../engine/machine/types.ts';
import { throttleProgress } from './event-throttle.ts';

let seq = 0;
const progress = (acknowledged: number): MachineEvent => ({
  type: 'progress',
  seq: ++seq,
  sent: acknowledged,
  acknowledged,
  total: 1000,
  line: acknowledged,
  sourceLine: acknowledged,
  command: 'G0',
  elapsed_s: 0,
  remaining_s: 0,
});

describe('progress throttle', () => {
  it('passes at most one progress event per 100 ms, always the latest, and ends with the last', () => {
    const clock = new ManualClock();
    const sent: MachineEvent[] = [];
    const throttle = throttleProgress((event) => sent.push(event), { clock });
    // 1000 acknowledgements over one second: one every millisecond.
    for (let i = 1; i <= 1000; i++) {
      throttle.push(progress(i));
      clock.advance(1);
    }
    clock.advance(200);
    const acknowledged = sent.map((e) => (e.type === 'progress' ? e.acknowledged : -1));
    expect(acknowledged.length).toBeLessThanOrEqual(11);
    expect(acknowledged[0]).toBe(1);
    expect(acknowledged.at(-1)).toBe(1000);
    expect(acknowledged).toEqual([...acknowledged].sort((a, b) => a - b));
  });

  it('lets other events through at once unless a progress is held back, keeping the order', () => {
    const clock = new ManualClock();
    const sent: MachineEvent[] = [];
    const throttle = throttleProgress((event) => sent.push(event), { clock });
    const shown = () => sent.map((e) => (e.type === 'progress' ? e.acknowledged : e.type));
    throttle.push({ type: 'log', direction: 'rx', text: 'echo:start', seq: ++seq });
    throttle.push(progress(1));
    expect(shown()).toEqual(['log', 1]);
    throttle.push(progress(2));
    throttle.push({ type: 'state', state: 'paused', seq: ++seq });
    // The state event came after progress 2, so it waits for it: at most one interval.
    expect(shown()).toEqual(['log', 1]);
    clock.advance(100);
    expect(shown()).toEqual(['log', 1, 2, 'state']);
    throttle.push({ type: 'action', text: 'pause', seq: ++seq });
    expect(shown()).toEqual(['log', 1, 2, 'state', 'action']);
    throttle.push(progress(3));
    throttle.stop();
    clock.advance(1000);
    expect(sent).toHaveLength(5);
  });

  it('keeps to ten progress events a second when every line also brings a log line', () => {
    const clock = new ManualClock();
    const sent: MachineEvent[] = [];
    const throttle = throttleProgress((event) => sent.push(event), { clock });
    // A chatty controller: an `echo:` line with every acknowledgement, 1000 lines in one second.
    for (let i = 1; i <= 1000; i++) {
      throttle.push({ type: 'log', direction: 'rx', text: `echo:line ${i}`, seq: ++seq });
      throttle.push(progress(i));
      clock.advance(1);
    }
    throttle.push({ type: 'state', state: 'completed', seq: ++seq });
    clock.advance(200);
    const progressSent = sent.filter((e) => e.type === 'progress');
    expect(progressSent.length).toBeLessThanOrEqual(11);
    expect(progressSent.at(-1)).toMatchObject({ acknowledged: 1000 });
    // Every other event arrives, none is lost, and seq never goes backwards on the wire.
    expect(sent.filter((e) => e.type === 'log')).toHaveLength(1000);
    expect(sent.at(-1)).toMatchObject({ type: 'state', state: 'completed' });
    const seqs = sent.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
