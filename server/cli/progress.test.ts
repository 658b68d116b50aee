import { describe, expect, it } from 'vitest';
import { createProgress, render } from './progress.ts';

function terminal(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 80, write: (text: string) => writes.push(text) } };
}

describe('progress bar', () => {
  it('draws nothing when the output is not a terminal', () => {
    const { writes, stream } = terminal(false);
    let t = 0;
    const progress = createProgress({ stream, label: 'Planning', total: 100, unit: 'lines', now: () => t });
    t = 5000;
    progress.update(50);
    progress.finish();
    expect(writes).toEqual([]);
  });

  it('stays quiet during the first second, then redraws at most every 100 ms and clears at the end', () => {
    const { writes, stream } = terminal(true);
    let t = 0;
    const progress = createProgress({ stream, label: 'Planning', total: 1000, unit: 'lines', now: () => t });
    t = 900;
    progress.update(100);
    expect(writes).toEqual([]);
    t = 1000;
    progress.update(400);
    t = 1050;
    progress.update(450);
    t = 1100;
    progress.update(500);
    expect(writes).toHaveLength(2);
    expect(writes[0]).toContain('40% 400/1,000 lines');
    expect(writes[1]).toContain('50% 500/1,000 lines');
    progress.finish();
    expect(writes.at(-1)).toBe('\r\x1b[K');
  });

  it('renders a bar proportional to the work done', () => {
    expect(render('Planning', 250, 1000, 'lines', 80)).toMatch(
      /^Planning \[#{10}-{30}\] {2}25% 250\/1,000 lines$/,
    );
    expect(render('Simulating', 5, 0, 'MB', 80)).toBe('Simulating 5 MB');
  });
});
