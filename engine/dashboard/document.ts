// The dashboard document's shape (`dashboard-document.md` §1, §3–§5), held once for both sides: the
// server validates it with the messages of §1.1 on top, the renderer edits and shows it. The type
// lists are in the spec's order, which the server's "must be one of" messages repeat.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Settings = Record<string, unknown>;

/** The eight fields of a document, in §1 order (exports and revisions keep this order). */
export const DOCUMENT_FIELDS = [
  'title',
  'version',
  'image',
  'datasources',
  'columns',
  'width',
  'panes',
  'settings',
] as const satisfies readonly (keyof DashboardDocument)[];

/** The values §1 gives the fields a document may leave out (`title` and `version` have none). */
export const DOCUMENT_DEFAULTS = {
  image: null,
  datasources: [],
  columns: 3,
  width: 'md',
  panes: [],
  settings: {},
} as const;

export const DATASOURCE_TYPES = ['http', 'sse', 'websocket', 'mqtt', 'static', 'clock', 'machine'] as const;
export type DatasourceType = (typeof DATASOURCE_TYPES)[number];

export const WIDGET_TYPES = [
  'text',
  'gauge',
  'indicator',
  'sparkline',
  'table',
  'bar-chart',
  'status-list',
  'picture',
  'html',
  'base',
] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** The display formats of §2.4. */
export const FORMATS = [
  'auto',
  'number',
  'integer',
  'percent',
  'duration',
  'date',
  'datetime',
  'json',
] as const;
export type Format = (typeof FORMATS)[number];

/** Ids of datasources, panes and widgets (§1); they never change once made, since bindings use them. */
export const ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface Datasource {
  id: string;
  title: string;
  type: string;
  enabled?: boolean;
  settings?: Settings;
}

export interface Layout {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Widget {
  id: string;
  type: string;
  title?: string;
  enabled?: boolean;
  settings?: Settings;
}

export interface Pane {
  id: string;
  title?: string;
  layout: Layout;
  widgets?: Widget[];
}

export interface DashboardDocument {
  title: string;
  version: string;
  image: string | null;
  datasources: Datasource[];
  columns: number;
  width: string;
  panes: Pane[];
  settings: Settings;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** MQTT topic filter (§3.2 `mqtt`): `+` a whole level, `#` only the whole last level, no NUL, 1–256 chars. */
export function isTopicFilter(topic: string): boolean {
  if (topic.length === 0 || [...topic].length > 256 || topic.includes('\u0000')) return false;
  const levels = topic.split('/');
  return levels.every(
    (level, i) =>
      (level === '#' ? i === levels.length - 1 : !level.includes('#')) &&
      (level === '+' || !level.includes('+')),
  );
}
