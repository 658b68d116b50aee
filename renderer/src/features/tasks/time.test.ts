import { describe, expect, it } from 'vitest';
import { clock, span } from './time.ts';

describe('task durations', () => {
  it('shows a running clock as m:ss, then h:mm:ss', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(59_999)).toBe('0:59');
    expect(clock(61_000)).toBe('1:01');
    expect(clock(3_600_000 + 5 * 60_000 + 9_000)).toBe('1:05:09');
    expect(clock(-5)).toBe('0:00');
  });

  it('writes spans in the units the operator typed them in', () => {
    expect(span(undefined)).toBe('–');
    expect(span(0)).toBe('–');
    expect(span(500)).toBe('<1s');
    expect(span(45 * 60_000)).toBe('45m');
    expect(span(5_400_000)).toBe('1h 30m');
    expect(span(90_000)).toBe('1m 30s');
    expect(span(86_400_000 + 2 * 3_600_000 + 61_000)).toBe('1d 2h 1m');
  });
});
