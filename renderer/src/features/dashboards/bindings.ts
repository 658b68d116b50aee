// Bindings, templates and display strings of `dashboard-document.md` §2: how a widget finds its value
// among the datasources' current values and turns it into text. The grammar is the engine's, which the
// server validates with; resolution is pure, so the viewer, the editor's preview and the tests agree.

import { type ParsedBinding, parseBinding, parseSteps, type Step } from '#engine/dashboard/bindings.ts';
import type { Format } from '#engine/dashboard/document.ts';

export { type Format, type ParsedBinding, parseBinding };

/** What a binding can see: each datasource by id, with its title and whether it has a value. */
export interface DatasourceValues {
  byId: ReadonlyMap<string, { title: string; enabled: boolean; hasValue: boolean; value: unknown }>;
}

export type Resolution =
  | { found: true; value: unknown; datasourceId: string }
  | { found: false; reason: 'syntax' | 'unknown' | 'disabled' | 'missing'; datasourceId?: string };

/** The datasource a binding refers to (by id, or by title ignoring case and surrounding spaces). */
export function findDatasource(values: DatasourceValues, ref: ParsedBinding['ref']): string | undefined {
  if (ref.byId) return values.byId.has(ref.key) ? ref.key : undefined;
  const wanted = ref.key.trim().toLowerCase();
  for (const [id, entry] of values.byId) if (entry.title.trim().toLowerCase() === wanted) return id;
  return undefined;
}

export function walk(start: unknown, steps: readonly Step[]): { found: boolean; value: unknown } {
  let value = start;
  for (const s of steps) {
    if (Array.isArray(value)) {
      const index = s.kind === 'index' ? s.index : /^[0-9]+$/.test(s.name) ? Number(s.name) : -1;
      if (index < 0 || index >= value.length) return { found: false, value: undefined };
      value = value[index];
    } else if (value !== null && typeof value === 'object') {
      const key = s.kind === 'index' ? String(s.index) : s.name;
      // Own properties only: `__proto__` and other inherited members never resolve.
      if (!Object.hasOwn(value, key)) return { found: false, value: undefined };
      value = (value as Record<string, unknown>)[key];
    } else return { found: false, value: undefined };
  }
  return { found: true, value };
}

export function resolveBinding(values: DatasourceValues, binding: string): Resolution {
  const parsed = parseBinding(binding);
  if (!parsed) return { found: false, reason: 'syntax' };
  const id = findDatasource(values, parsed.ref);
  if (!id) return { found: false, reason: 'unknown' };
  const entry = values.byId.get(id);
  if (!entry?.enabled) return { found: false, reason: 'disabled', datasourceId: id };
  if (!entry.hasValue) return { found: false, reason: 'missing', datasourceId: id };
  const result = walk(entry.value, parsed.steps);
  return result.found
    ? { found: true, value: result.value, datasourceId: id }
    : { found: false, reason: 'missing', datasourceId: id };
}

/** A row-relative field path (`name`, `a.b`, `[0]`, `""` = the row itself); undefined when missing. */
export function resolveField(row: unknown, field: string): unknown {
  if (field === '') return row;
  const steps = parseSteps(field);
  if (!steps) return undefined;
  const result = walk(row, steps);
  return result.found ? result.value : undefined;
}

export const MISSING = '—';

const PLACEHOLDER = /\{\{ *([^{}]*?) *\}\}/g;

/** The datasource ids a template's placeholders read from. */
export function templateBindings(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Placeholders become display strings; missing and null become —. Plain text, never HTML. */
export function renderTemplate(
  values: DatasourceValues,
  template: string,
  precision: number | null = null,
): string {
  return template.replace(PLACEHOLDER, (_whole, binding: string) => {
    const result = resolveBinding(values, binding);
    if (!result.found || result.value === null) return MISSING;
    return formatValue(result.value, 'auto', precision);
  });
}

function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function compactJson(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The display string of a value (§2.4); what a format cannot show is —. */
export function formatValue(
  value: unknown,
  format: Format | string = 'auto',
  precision: number | null = null,
): string {
  if (value === undefined || value === null) return MISSING;
  switch (format) {
    case 'number': {
      const n = numeric(value);
      if (n === null) return MISSING;
      return n.toLocaleString(undefined, {
        minimumFractionDigits: precision ?? 0,
        maximumFractionDigits: precision ?? 3,
      });
    }
    case 'integer': {
      const n = numeric(value);
      return n === null ? MISSING : Math.round(n).toLocaleString();
    }
    case 'percent': {
      const n = numeric(value);
      return n === null ? MISSING : `${(n * 100).toFixed(1)}%`;
    }
    case 'duration': {
      const n = numeric(value);
      if (n === null || n < 0) return MISSING;
      const whole = Math.round(n);
      const h = Math.floor(whole / 3600);
      const m = Math.floor((whole % 3600) / 60);
      const s = whole % 60;
      return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
    }
    case 'date':
    case 'datetime': {
      const date =
        typeof value === 'number' ? new Date(value) : typeof value === 'string' ? new Date(value) : null;
      if (!date || Number.isNaN(date.getTime())) return MISSING;
      return format === 'date' ? date.toLocaleDateString() : date.toLocaleString();
    }
    case 'json':
      return JSON.stringify(value) ?? MISSING;
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) return MISSING;
        return precision === null ? String(value) : value.toFixed(precision);
      }
      if (typeof value === 'boolean') return String(value);
      return compactJson(value);
  }
}
