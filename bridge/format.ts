// The CLI's output formats (spec §6.3): json for scripts, table for people, ids for pipelines.
import { formatLocalDateTime } from './dates.ts';
import { formatDuration } from './durations.ts';
import { BridgeError } from './errors.ts';
import { isObject } from './json.ts';
import type { Entity } from './lists.ts';

export type Format = 'json' | 'table' | 'ids';

/** What a CLI command prints: a list of entities or one value (an object, or null). */
export type Printable =
  | { kind: 'list'; items: unknown[]; entity: Entity }
  | { kind: 'value'; value: unknown };

function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

const width = (text: string) => [...text].length;

function text(value: string): string {
  return hasControl(value) ? JSON.stringify(value) : value;
}

function duration(value: unknown): string {
  if (value === undefined || value === null || value === 0) return '-';
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return formatDuration(value);
  return JSON.stringify(value);
}

function plain(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (typeof value === 'string') return text(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.length === 0) return '-';
  if (isObject(value) && Object.keys(value).length === 0) return '-';
  return JSON.stringify(value);
}

function yesNo(value: unknown, absent: string): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  return absent;
}

function due(task: Record<string, unknown>): string {
  if (typeof task.dueWithTime === 'number' && task.dueWithTime > 0)
    return formatLocalDateTime(task.dueWithTime);
  if (typeof task.dueDay === 'string' && task.dueDay !== '') return text(task.dueDay);
  return '-';
}

const COLUMNS: Record<Entity, { headers: string[]; row: (item: Record<string, unknown>) => string[] }> = {
  task: {
    headers: ['ID', 'DONE', 'TITLE', 'DUE', 'SPENT/EST'],
    row: (t) => [
      plain(t.id),
      t.isDone === true ? 'yes' : 'no',
      plain(t.title),
      due(t),
      `${duration(t.timeSpent)}/${duration(t.timeEstimate)}`,
    ],
  },
  project: {
    headers: ['ID', 'TITLE', 'ARCHIVED'],
    row: (p) => [plain(p.id), plain(p.title), yesNo(p.isArchived, '-')],
  },
  tag: { headers: ['ID', 'TITLE'], row: (t) => [plain(t.id), plain(t.title)] },
};

function grid(headers: string[], rows: (string[] | string)[]): string {
  const widths = headers.map(width);
  for (const row of rows) {
    if (typeof row === 'string') continue;
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map((row) => (typeof row === 'string' ? row : line(row)))]
    .map((l) => `${l}\n`)
    .join('');
}

function keyValues(object: Record<string, unknown>): string {
  const keys = Object.keys(object);
  const first = ['id', 'title'].filter((key) => keys.includes(key));
  const rest = keys.filter((key) => key !== 'id' && key !== 'title').sort();
  const ordered = [...first, ...rest];
  const pad = Math.max(0, ...ordered.map(width)) + 2;
  return ordered
    .map((key) => {
      const value = object[key];
      const shown = key === 'timeSpent' || key === 'timeEstimate' ? duration(value) : plain(value);
      return `${key}${' '.repeat(pad - width(key))}${shown}`.trimEnd();
    })
    .map((l) => `${l}\n`)
    .join('');
}

function idsOf(printable: Printable): string {
  if (printable.kind === 'list') {
    return printable.items
      .map((item, index) => {
        if (isObject(item) && typeof item.id === 'string') return `${item.id}\n`;
        throw new BridgeError('APP_ERROR', `Item ${index} has no string id`, { index });
      })
      .join('');
  }
  const { value } = printable;
  if (value === null) return '';
  if (isObject(value)) {
    if (typeof value.id === 'string') return `${value.id}\n`;
    if ('currentTaskId' in value)
      return typeof value.currentTaskId === 'string' ? `${value.currentTaskId}\n` : '';
  }
  throw new BridgeError('APP_ERROR', 'The result has no string id');
}

export function render(printable: Printable, format: Format): string {
  if (format === 'json') {
    const value = printable.kind === 'list' ? printable.items : printable.value;
    return `${JSON.stringify(value, null, 2)}\n`;
  }
  if (format === 'ids') return idsOf(printable);
  if (printable.kind === 'list') {
    const columns = COLUMNS[printable.entity];
    const rows = printable.items.map((item) => (isObject(item) ? columns.row(item) : JSON.stringify(item)));
    return grid(columns.headers, rows);
  }
  const { value } = printable;
  if (value === null) return '-\n';
  if (isObject(value)) return keyValues(value);
  return `${plain(value)}\n`;
}
