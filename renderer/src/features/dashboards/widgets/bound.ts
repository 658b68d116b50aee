// What a widget shows for one binding, and the note beside it (`dashboard-document.md` §7.3).
import { parseBinding, resolveBinding } from '../bindings.ts';
import type { HubSnapshot } from '../realtime/hub.ts';

export interface Bound {
  /** The resolved value; undefined when missing. */
  value: unknown;
  /** "Connecting…", "Stale", an error message, "Unknown datasource X", "Datasource disabled", or null. */
  note: string | null;
  status: string | null;
  /** The datasource it read from, when it names one. */
  datasourceId?: string;
}

export function bind(snapshot: HubSnapshot, path: unknown): Bound {
  if (typeof path !== 'string' || path === '') return { value: undefined, note: null, status: null };
  const result = resolveBinding(snapshot, path);
  if (!result.found && result.reason === 'syntax')
    return { value: undefined, note: `Invalid binding ${path}`, status: null };
  if (!result.found && result.reason === 'unknown') {
    const ref = parseBinding(path)?.ref.key ?? path;
    return { value: undefined, note: `Unknown datasource ${ref}`, status: null };
  }
  if (!result.found && result.reason === 'disabled')
    return { value: undefined, note: 'Datasource disabled', status: null };
  const state = result.datasourceId ? snapshot.states.get(result.datasourceId) : undefined;
  const value = result.found ? result.value : undefined;
  const status = state?.status ?? null;
  let note: string | null = null;
  if (status === 'connecting' && (value === undefined || value === null)) note = 'Connecting…';
  else if (status === 'stale') note = 'Stale';
  else if (status === 'error') note = state?.message ?? 'Error';
  return { value, note, status, ...(result.datasourceId ? { datasourceId: result.datasourceId } : {}) };
}

/** The notes of several bindings (a template's), first problem first. */
export function combine(notes: readonly Bound[]): Pick<Bound, 'note' | 'status'> {
  const worst = notes.find((b) => b.status === 'error') ?? notes.find((b) => b.note !== null) ?? notes[0];
  return { note: worst?.note ?? null, status: worst?.status ?? null };
}

export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function setting<T>(
  settings: Record<string, unknown> | undefined,
  key: string,
  fallback: T,
  ok: (v: unknown) => boolean,
): T {
  const value = settings?.[key];
  return ok(value) ? (value as T) : fallback;
}

export const isString = (v: unknown) => typeof v === 'string';
export const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
export const isBoolean = (v: unknown) => typeof v === 'boolean';
export const isColor = (v: unknown) => typeof v === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(v);
