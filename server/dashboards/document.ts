// The dashboard document (`dashboard-document.md`): validation in the order and with the messages of
// its §1.1, the limits of its §8 and the trusted-content signatures of API §8.9. The shape, the type
// lists and the binding grammar (§2) are the engine's (`engine/dashboard/`), shared with the renderer.
import { isBinding, isFieldPath, isTemplate } from '../../engine/dashboard/bindings.ts';
import {
  DATASOURCE_TYPES,
  DOCUMENT_DEFAULTS,
  DOCUMENT_FIELDS,
  FORMATS,
  ID,
  isObject,
  isTopicFilter,
  WIDGET_TYPES,
} from '../../engine/dashboard/document.ts';
import type { DashboardDocument, JsonObject } from '../db/schema.ts';

/** A document that fails validation; `message` is the exact BAD_USER_INPUT message. */
export class DocumentError extends Error {
  override name = 'DocumentError';
}

export { DOCUMENT_DEFAULTS, DOCUMENT_FIELDS };

const LONG_TEXT = 65536;

const isInteger = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
const codePoints = (text: string) => [...text].length;

// ---- field checks, each returning a §1.1 detail or null ----

type Check = (value: unknown, field: string) => string | null;

const string =
  (max: number, nonEmpty = false): Check =>
  (value, f) =>
    typeof value === 'string' && codePoints(value) <= max && (!nonEmpty || value.trim() !== '')
      ? null
      : `${f} must be a ${nonEmpty ? 'non-empty ' : ''}string of at most ${max} characters`;
const integer =
  (min: number, max: number): Check =>
  (value, f) =>
    isInteger(value, min, max) ? null : `${f} must be an integer from ${min} to ${max}`;
const finite: Check = (value, f) =>
  typeof value === 'number' && Number.isFinite(value) ? null : `${f} must be a finite number`;
const boolean: Check = (value, f) => (typeof value === 'boolean' ? null : `${f} must be a boolean`);
const oneOf =
  (...values: unknown[]): Check =>
  (value, f) =>
    values.includes(value) ? null : `${f} must be one of ${values.join(', ')}`;
const nullable =
  (check: Check): Check =>
  (value, f) =>
    value === null ? null : check(value, f);
const binding: Check = (value, f) =>
  typeof value === 'string' && (value === '' || isBinding(value)) ? null : `${f} is not a valid binding path`;
const fieldPath: Check = (value, f) =>
  typeof value === 'string' && isFieldPath(value) ? null : `${f} is not a valid field path`;
const template =
  (max: number): Check =>
  (value, f) =>
    string(max)(value, f) ?? (isTemplate(value as string) ? null : `${f} is not a valid binding path`);
const colour: Check = (value, f) =>
  typeof value === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)
    ? null
    : `${f} must be a colour like #1a2b3c`;
const isHttpUrl = (value: unknown, max = 2048) => {
  if (typeof value !== 'string' || value.length > max) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};
const httpUrl: Check = (value, f) => (isHttpUrl(value) ? null : `${f} must be an http(s) URL`);
const wsUrl: Check = (value, f) => {
  if (typeof value === 'string' && value.length <= 2048) {
    try {
      const url = new URL(value);
      if (url.protocol === 'ws:' || url.protocol === 'wss:') return null;
    } catch {
      // falls through to the message
    }
  }
  return `${f} must be a ws(s) URL`;
};
const imageUrl =
  (types: string): Check =>
  (value, f) =>
    isHttpUrl(value, LONG_TEXT) ||
    (typeof value === 'string' && new RegExp(`^data:image/(${types});base64,`).test(value))
      ? null
      : `${f} must be an http(s) or data:image URL`;
const arrayOf =
  (max: number, item?: Check): Check =>
  (value, f) => {
    if (!Array.isArray(value) || value.length > max) return `${f} must be an array of at most ${max} items`;
    if (item)
      for (const [i, entry] of value.entries()) {
        const problem = item(entry, `${f}[${i}]`);
        if (problem) return problem;
      }
    return null;
  };
const object: Check = (value, f) => (isObject(value) ? null : `${f} must be an object`);

/** Checks the keys of `settings` that `rules` names (absent keys are fine; others are kept). */
function checkSettings(
  settings: JsonObject,
  rules: Record<string, Check>,
  prefix = 'settings',
): string | null {
  for (const [key, check] of Object.entries(rules)) {
    if (!(key in settings) || settings[key] === undefined) continue;
    const problem = check(settings[key], prefix ? `${prefix}.${key}` : key);
    if (problem) return problem;
  }
  return null;
}

function checkRequired(settings: JsonObject, keys: string[], prefix = 'settings'): string | null {
  for (const key of keys) if (settings[key] === undefined) return `${prefix}.${key} is required`;
  return null;
}

/** Only `allowed` keys; the first other one is reported. */
function unknownField(entry: JsonObject, allowed: readonly string[]): string | null {
  const extra = Object.keys(entry).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `unknown field ${extra}`;
}

// ---- datasources (API §8.10, document §3) ----

const headers: Check = (value, f) => {
  if (!isObject(value)) return `${f} must be an object`;
  const entries = Object.entries(value);
  if (entries.length > 32) return `${f} must be an object of at most 32 headers`;
  for (const [name, text] of entries) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(name)) return `${f} has an invalid header name ${name}`;
    if (typeof text !== 'string' || text.length > 4096 || /[\r\n]/.test(text))
      return `${f}.${name} must be a string of at most 4096 characters`;
  }
  return null;
};

const STREAM_RULES: Record<string, Check> = {
  parser: oneOf('json', 'text'),
  authPlacement: oneOf('header', 'query'),
  queryParamName: nullable(string(128, true)),
  headers,
  idleTimeoutMs: integer(5000, 3_600_000),
};

const TYPE_RULES: Record<string, { required?: string[]; rules: Record<string, Check> }> = {
  http: {
    required: ['url'],
    rules: {
      url: httpUrl,
      method: oneOf('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      parser: oneOf('json', 'text', 'csv'),
      headers,
      body: nullable(string(65536)),
      timeoutMs: integer(1000, 60000),
      refresh: integer(1, 86400),
    },
  },
  sse: { required: ['url'], rules: { url: httpUrl, ...STREAM_RULES } },
  websocket: {
    required: ['url'],
    rules: {
      url: wsUrl,
      ...STREAM_RULES,
      protocols: (value, f) =>
        typeof value === 'string' ? string(128, true)(value, f) : arrayOf(8, string(128, true))(value, f),
    },
  },
  mqtt: {
    required: ['brokerProfileId', 'topic'],
    rules: {
      brokerProfileId: string(64, true),
      topic: (value, f) =>
        typeof value === 'string' && isTopicFilter(value) ? null : `${f} must be a valid MQTT topic filter`,
      qos: oneOf(0, 1),
      keepaliveSeconds: integer(5, 3600),
      parser: oneOf('json', 'text'),
    },
  },
  static: { rules: { refresh: integer(0, 86400) } },
  clock: { rules: { refresh: integer(1, 3600) } },
  machine: { rules: {} },
};

function datasourceProblem(entry: unknown, seenIds: Set<string>, seenTitles: Set<string>): string | null {
  if (!isObject(entry)) return 'entry must be an object';
  const unknown = unknownField(entry, ['id', 'title', 'type', 'enabled', 'settings']);
  if (unknown) return unknown;
  if (entry.id === undefined) return 'id is required';
  if (typeof entry.id !== 'string' || !ID.test(entry.id)) return 'id must match [A-Za-z0-9_-]{1,64}';
  if (seenIds.has(entry.id)) return `duplicate id ${entry.id}`;
  seenIds.add(entry.id);
  if (entry.title === undefined) return 'title is required';
  const titleProblem = string(100, true)(entry.title, 'title');
  if (titleProblem) return titleProblem;
  const title = (entry.title as string).trim().toLowerCase();
  if (title === 'datasources') return 'title must not be "datasources"';
  if (seenTitles.has(title)) return `duplicate title ${(entry.title as string).trim()}`;
  seenTitles.add(title);
  if (entry.type === undefined) return 'type is required';
  const typeProblem = oneOf(...DATASOURCE_TYPES)(entry.type, 'type');
  if (typeProblem) return typeProblem;
  if (entry.enabled !== undefined) {
    const problem = boolean(entry.enabled, 'enabled');
    if (problem) return problem;
  }
  if (entry.settings === undefined) return null;
  if (!isObject(entry.settings)) return 'settings must be an object';
  const settings = entry.settings;
  const common = checkSettings(settings, {
    credentialProfileId: nullable(string(64, true)),
    staleAfterSeconds: integer(0, 86400),
  });
  if (common) return common;
  const typeRules = TYPE_RULES[entry.type as string] as (typeof TYPE_RULES)[string];
  const problem =
    checkRequired(settings, typeRules.required ?? []) ?? checkSettings(settings, typeRules.rules);
  if (problem) return problem;
  if (
    (entry.type === 'sse' || entry.type === 'websocket') &&
    settings.authPlacement === 'query' &&
    (settings.queryParamName === undefined || settings.queryParamName === null)
  )
    return 'settings.queryParamName is required';
  return null;
}

/** The §8.10 detail of a datasource entry, or null when valid on its own (ids and titles unchecked). */
export function datasourceDetail(entry: unknown): string | null {
  return datasourceProblem(entry, new Set(), new Set());
}

// ---- panes and widgets (§4, §5) ----

const WIDGET_RULES: Record<string, Record<string, Check>> = {
  text: {
    format: oneOf(...FORMATS),
    precision: nullable(integer(0, 10)),
    unitText: string(32),
    size: oneOf('regular', 'large'),
  },
  gauge: { min: finite, max: finite, precision: integer(0, 10), unitText: string(32) },
  indicator: { onText: string(64), offText: string(64), onColor: colour, offColor: colour },
  sparkline: {
    seriesPaths: arrayOf(8, binding),
    seriesLabels: arrayOf(8, string(64)),
    historyLength: integer(2, 1000),
    lineWidth: (value, f) =>
      typeof value === 'number' && value >= 0.5 && value <= 10 ? null : `${f} must be a finite number`,
    scaleMode: oneOf('auto', 'fixed'),
    min: finite,
    max: finite,
    showLegend: boolean,
  },
  table: {
    columns: (value, f) => {
      const problem = arrayOf(32, object)(value, f);
      if (problem) return problem;
      for (const [i, column] of (value as JsonObject[]).entries()) {
        const at = `${f}[${i}]`;
        const found = checkSettings(
          column,
          {
            field: fieldPath,
            header: string(100),
            width: (v, g) =>
              typeof v === 'string' && /^[0-9]{1,4}(px|%)$/.test(v) ? null : `${g} must be one of px, %`,
            align: oneOf('left', 'center', 'right'),
            format: oneOf(...FORMATS),
          },
          at,
        );
        if (found) return found;
      }
      return null;
    },
    rowsPerPage: integer(0, 1000),
    sortable: boolean,
    striped: boolean,
    compact: boolean,
    emptyText: string(200),
  },
  'bar-chart': {
    labelField: fieldPath,
    valueField: fieldPath,
    seriesFields: arrayOf(8, fieldPath),
    orientation: oneOf('vertical', 'horizontal'),
    showValues: boolean,
    showGrid: boolean,
    animated: boolean,
    colors: arrayOf(16, colour),
  },
  'status-list': {
    labelField: fieldPath,
    valueField: fieldPath,
    statusField: fieldPath,
    statusColors: (value, f) => {
      if (!isObject(value)) return `${f} must be an object`;
      const entries = Object.entries(value);
      if (entries.length > 32) return `${f} must be an object of at most 32 items`;
      for (const [key, c] of entries) {
        if (key.length > 32) return `${f}.${key} must be a string of at most 32 characters`;
        const problem = colour(c, `${f}.${key}`);
        if (problem) return problem;
      }
      return null;
    },
    showIcons: boolean,
    compact: boolean,
  },
  picture: {
    src: imageUrl('png|jpeg|gif|webp'),
    fitMode: oneOf('contain', 'cover', 'fill'),
    refreshSeconds: integer(0, 3600),
    altText: string(200),
  },
  html: { mode: oneOf('text', 'safe_html', 'trusted_html'), html: string(LONG_TEXT) },
  base: {
    html: string(LONG_TEXT),
    style: string(LONG_TEXT),
    script: string(LONG_TEXT),
    resources: arrayOf(16, httpUrl),
  },
};

function widgetProblem(widget: unknown, seenIds: Set<string>): string | null {
  if (!isObject(widget)) return 'widget must be an object';
  const unknown = unknownField(widget, ['id', 'type', 'title', 'enabled', 'settings']);
  if (unknown) return unknown;
  if (widget.id === undefined) return 'id is required';
  if (typeof widget.id !== 'string' || !ID.test(widget.id)) return 'id must match [A-Za-z0-9_-]{1,64}';
  if (seenIds.has(widget.id)) return `duplicate id ${widget.id}`;
  seenIds.add(widget.id);
  if (widget.type === undefined) return 'type is required';
  const problem =
    oneOf(...WIDGET_TYPES)(widget.type, 'type') ??
    (widget.title === undefined ? null : string(200)(widget.title, 'title')) ??
    (widget.enabled === undefined ? null : boolean(widget.enabled, 'enabled'));
  if (problem) return problem;
  if (widget.settings === undefined) return null;
  if (!isObject(widget.settings)) return 'settings must be an object';
  const settings = widget.settings;
  // Keys ending in Path hold bindings and in Template templates, whatever the widget type.
  for (const [key, value] of Object.entries(settings)) {
    if (key.endsWith('Path') && value !== null) {
      const found = binding(value, `settings.${key}`);
      if (found) return found;
    }
    if (key.endsWith('Template') && value !== null) {
      const found = template(4096)(value, `settings.${key}`);
      if (found) return found;
    }
  }
  const typed = checkSettings(settings, WIDGET_RULES[widget.type as string] ?? {});
  if (typed) return typed;
  const rangeMatters =
    widget.type === 'gauge' || (widget.type === 'sparkline' && settings.scaleMode === 'fixed');
  if (rangeMatters) {
    const min = (settings.min as number | undefined) ?? 0;
    const max = (settings.max as number | undefined) ?? 100;
    if (!(min < max)) return 'min must be less than max';
  }
  return null;
}

interface Cell {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

function paneProblem(pane: unknown, columns: number, seen: Set<string>, placed: Cell[]): string | null {
  if (!isObject(pane)) return 'pane must be an object';
  const unknown = unknownField(pane, ['id', 'title', 'layout', 'widgets']);
  if (unknown) return unknown;
  if (pane.id === undefined) return 'id is required';
  if (typeof pane.id !== 'string' || !ID.test(pane.id)) return 'id must match [A-Za-z0-9_-]{1,64}';
  if (seen.has(pane.id)) return `duplicate id ${pane.id}`;
  seen.add(pane.id);
  if (pane.title !== undefined) {
    const problem = string(200)(pane.title, 'title');
    if (problem) return problem;
  }
  if (pane.layout === undefined) return 'layout is required';
  if (!isObject(pane.layout)) return 'layout must be an object';
  const layout = pane.layout;
  const problem =
    unknownField(layout, ['x', 'y', 'w', 'h']) ??
    checkRequired(layout, ['x', 'y', 'w', 'h'], 'layout') ??
    checkSettings(
      layout,
      { x: integer(0, 11), y: integer(0, 9999), w: integer(1, 12), h: integer(1, 100) },
      'layout',
    );
  if (problem) return problem;
  const cell = { id: pane.id, ...(layout as { x: number; y: number; w: number; h: number }) };
  if (cell.x + cell.w > columns) return `layout does not fit in ${columns} columns`;
  const overlapping = placed.find(
    (other) =>
      cell.x < other.x + other.w &&
      other.x < cell.x + cell.w &&
      cell.y < other.y + other.h &&
      other.y < cell.y + cell.h,
  );
  if (overlapping) return `overlaps pane ${overlapping.id}`;
  placed.push(cell);
  if (pane.widgets !== undefined && !Array.isArray(pane.widgets))
    return 'widgets must be an array of at most 50 items';
  return null;
}

// ---- trusted content (API §8.9) ----

const nonEmpty = (value: unknown) =>
  value !== undefined &&
  value !== null &&
  !(typeof value === 'string' && value.trim() === '') &&
  !(Array.isArray(value) && value.length === 0) &&
  !(isObject(value) && Object.keys(value).length === 0);

/** JSON with sorted keys and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The signatures of every trusted item of a document (with repeats). */
export function trustedSignatures(document: Pick<DashboardDocument, 'panes' | 'settings'>): string[] {
  const found: string[] = [];
  const settings = isObject(document.settings) ? document.settings : {};
  for (const key of ['script', 'style', 'resources'])
    if (nonEmpty(settings[key])) found.push(canonicalJson([key, settings[key]]));
  for (const pane of Array.isArray(document.panes) ? document.panes : []) {
    for (const widget of isObject(pane) && Array.isArray(pane.widgets) ? pane.widgets : []) {
      if (!isObject(widget) || !isObject(widget.settings)) continue;
      const widgetSettings = widget.settings;
      if (widget.type === 'html' && widgetSettings.mode === 'trusted_html')
        found.push(canonicalJson(['html', widgetSettings]));
      if (widget.type === 'base' && (nonEmpty(widgetSettings.script) || nonEmpty(widgetSettings.resources)))
        found.push(canonicalJson(['base', widgetSettings]));
    }
  }
  return found;
}

/** True when `next` holds some trusted item more often than `stored` (SAFE mode refuses it). */
export function addsTrustedContent(
  stored: Pick<DashboardDocument, 'panes' | 'settings'> | null,
  next: Pick<DashboardDocument, 'panes' | 'settings'>,
): boolean {
  const counts = new Map<string, number>();
  for (const signature of stored ? trustedSignatures(stored) : [])
    counts.set(signature, (counts.get(signature) ?? 0) + 1);
  for (const signature of trustedSignatures(next)) {
    const left = counts.get(signature) ?? 0;
    if (left === 0) return true;
    counts.set(signature, left - 1);
  }
  return false;
}

// ---- limits (§8) ----

function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child));
  return deepest + 1;
}

/** The document's fields in §1 order, as measured by the size limit and kept by revisions. */
export function orderedDocument(document: DashboardDocument): DashboardDocument {
  return {
    title: document.title,
    version: document.version,
    image: document.image,
    datasources: document.datasources,
    columns: document.columns,
    width: document.width,
    panes: document.panes,
    settings: document.settings,
  };
}

/**
 * Validates a whole (merged) document; throws DocumentError with the first failure's message.
 * `title` is expected trimmed already.
 */
export function validateDocument(document: Record<(typeof DOCUMENT_FIELDS)[number], unknown>): void {
  const fail = (message: string): never => {
    throw new DocumentError(message);
  };
  const { title, version, image, datasources, columns, width, panes, settings } = document;
  if (typeof title !== 'string' || codePoints(title) < 1 || codePoints(title) > 200)
    fail('title must be 1–200 characters');
  if (typeof version !== 'string' || codePoints(version) < 1 || codePoints(version) > 64)
    fail('version must be 1–64 characters');
  if (image !== null && imageUrl('png|jpeg|webp')(image, 'image'))
    fail('image must be null or an http(s) or data:image URL of at most 262144 characters');
  if (typeof image === 'string' && image.length > 262144)
    fail('image must be null or an http(s) or data:image URL of at most 262144 characters');
  if (!Array.isArray(datasources)) fail('datasources must be an array');
  if (!isInteger(columns, 1, 12)) fail('columns must be an integer from 1 to 12');
  if (typeof width !== 'string' || codePoints(width) < 1 || codePoints(width) > 16)
    fail('width must be 1–16 characters');
  if (!Array.isArray(panes)) fail('panes must be an array');
  if (!isObject(settings)) fail('settings must be an object');

  const sources = datasources as unknown[];
  const paneList = panes as unknown[];
  if (sources.length > 50) fail('A dashboard can have at most 50 datasources');
  if (paneList.length > 100) fail('A dashboard can have at most 100 panes');
  let widgets = 0;
  for (const pane of paneList) {
    const list = isObject(pane) && Array.isArray(pane.widgets) ? pane.widgets : [];
    if (list.length > 50) fail('A pane can have at most 50 widgets');
    widgets += list.length;
  }
  if (widgets > 300) fail('A dashboard can have at most 300 widgets');
  const ordered = orderedDocument(document as unknown as DashboardDocument);
  if (depth(ordered) > 32) fail('Dashboard document is nested deeper than 32 levels');
  if (Buffer.byteLength(JSON.stringify(ordered)) > 1_048_576)
    fail('Dashboard document exceeds 1048576 bytes');

  const ids = new Set<string>();
  const titles = new Set<string>();
  for (const [i, entry] of sources.entries()) {
    const problem = datasourceProblem(entry, ids, titles);
    if (problem) fail(`Invalid datasource at index ${i}: ${problem}`);
  }
  const paneIds = new Set<string>();
  const widgetIds = new Set<string>();
  const placed: Cell[] = [];
  for (const [i, pane] of paneList.entries()) {
    const problem = paneProblem(pane, columns as number, paneIds, placed);
    if (problem) fail(`Invalid pane at index ${i}: ${problem}`);
    for (const [j, widget] of (((pane as JsonObject).widgets as unknown[]) ?? []).entries()) {
      const found = widgetProblem(widget, widgetIds);
      if (found) fail(`Invalid widget at pane ${i} index ${j}: ${found}`);
    }
  }
  const settingsProblem = checkSettings(
    settings as JsonObject,
    {
      theme: oneOf('auto', 'light', 'dark', 'high-contrast'),
      style: string(LONG_TEXT),
      script: string(LONG_TEXT),
      resources: arrayOf(16, httpUrl),
    },
    '',
  );
  if (settingsProblem) fail(`Invalid dashboard settings: ${settingsProblem}`);
}
