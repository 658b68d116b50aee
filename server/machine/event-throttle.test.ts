import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../engine/machine/clock.ts';
import type { MachineEvent } from '../../engine/machine/types.ts';
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

  it('lets other events through at once, after the progress held back, keeping the order', () => {
    const clock = new ManualClock();
    const sent: MachineEvent[] = [];
    const throttle = throttleProgress((event) => sent.push(event), { clock });
    throttle.push(progress(1));
    throttle.push(progress(2));
    throttle.push({ type: 'state', state: 'paused', seq: ++seq });
    expect(sent.map((e) => (e.type === 'progress' ? e.acknowledged : e.type))).toEqual([1, 2, 'state']);
    throttle.push(progress(3));
    throttle.stop();
    clock.advance(1000);
    expect(sent).toHaveLength(3);
  });
});
