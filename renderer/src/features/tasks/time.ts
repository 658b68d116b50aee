// How the Tasks area writes durations: `1:05:09` for a running clock, `1h 30m` for estimates.

/** A running clock: `m:ss` under an hour, `h:mm:ss` from then on. */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** A planned or spent time in words the task app uses: `1d 2h`, `1h 30m`, `45m`, `20s`, `–`. */
export function span(ms: number | undefined): string {
  if (!ms || ms <= 0) return '–';
  if (ms < 1000) return '<1s';
  let seconds = Math.floor(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(seconds / size);
    seconds -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  // Seconds only matter for short spans.
  return (parts.length > 2 ? parts.filter((part) => !part.endsWith('s')) : parts).join(' ');
}
