/** Where a progress bar draws: a terminal stream (stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface Progress {
  /** Reports how much is done (and the total, once known); cheap enough to call for every chunk. */
  update(done: number, total?: number): void;
  /** Clears the bar, if one was drawn. */
  finish(): void;
}

export interface ProgressOptions {
  stream: ProgressStream;
  label: string;
  /** Expected total, or 0 when unknown (the bar then shows only the count). */
  total: number;
  unit: string;
  now?: () => number;
  /** Runs shorter than this never show a bar. */
  delayMs?: number;
}

const NO_PROGRESS: Progress = { update: () => {}, finish: () => {} };
const REDRAW_MS = 100;

/**
 * A one-line progress bar for long CLI runs: only on a terminal (never when output is piped or
 * redirected), only once the run has lasted `delayMs`, redrawn at most ten times a second.
 */
export function createProgress({
  stream,
  label,
  total,
  unit,
  now = () => performance.now(),
  delayMs = 1000,
}: ProgressOptions): Progress {
  if (!stream.isTTY) return NO_PROGRESS;
  const started = now();
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(done, knownTotal = total) {
      const t = now();
      if (t - started < delayMs || t - drawnAt < REDRAW_MS) return;
      drawnAt = t;
      drawn = true;
      stream.write(`\r\x1b[K${render(label, done, knownTotal, unit, stream.columns ?? 80)}`);
    },
    finish() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

export function render(label: string, done: number, total: number, unit: string, columns: number): string {
  const count =
    total > 0
      ? `${done.toLocaleString('en')}/${total.toLocaleString('en')} ${unit}`
      : `${done.toLocaleString('en')} ${unit}`;
  if (total <= 0) return `${label} ${count}`;
  const fraction = Math.min(1, Math.max(0, done / total));
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const width = Math.max(10, Math.min(40, columns - label.length - count.length - 10));
  const filled = Math.round(fraction * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent} ${count}`;
}
