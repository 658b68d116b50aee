// The dashboard document as the editor and viewer hold it (`dashboard-document.md` §1, §3–§6; its shape
// and type lists are the engine's), with the editor's layout rules (§4), and JSON export and import (§9). The server validates every save; these
// helpers keep the working copy valid in the ways the screens can see.

import {
  type DashboardDocument,
  type Datasource,
  DOCUMENT_DEFAULTS,
  DOCUMENT_FIELDS,
  ID,
  isObject,
  type Layout,
  type Pane,
  type Settings,
  type Widget,
} from '#engine/dashboard/document.ts';

export {
  DATASOURCE_TYPES,
  type DashboardDocument,
  type Datasource,
  type DatasourceType,
  isObject,
  type Json,
  type Layout,
  type Pane,
  type Settings,
  WIDGET_TYPES,
  type Widget,
  type WidgetType,
} from '#engine/dashboard/document.ts';

export const WIDGET_LABELS: Record<string, string> = {
  text: 'Text',
  gauge: 'Gauge',
  indicator: 'Indicator',
  sparkline: 'Sparkline',
  table: 'Table',
  'bar-chart': 'Bar chart',
  'status-list': 'Status list',
  picture: 'Picture',
  html: 'HTML',
  base: 'Custom (base)',
};

/** The writer label every save carries (§1 `version`). */
export const WRITER = `towpath ${import.meta.env?.VITE_APP_VERSION ?? '0.1.0'}`;

/** The eight document fields of anything shaped like a dashboard, defaults filled (§1). */
export function documentOf(source: Record<string, unknown>): DashboardDocument {
  return {
    title: typeof source.title === 'string' ? source.title : '',
    version: typeof source.version === 'string' && source.version ? source.version : WRITER,
    image: typeof source.image === 'string' ? source.image : null,
    datasources: Array.isArray(source.datasources) ? (source.datasources as Datasource[]) : [],
    columns: typeof source.columns === 'number' ? source.columns : DOCUMENT_DEFAULTS.columns,
    width: typeof source.width === 'string' ? source.width : DOCUMENT_DEFAULTS.width,
    panes: Array.isArray(source.panes) ? (source.panes as Pane[]) : [],
    settings: isObject(source.settings) ? (source.settings as Settings) : {},
  };
}

/** A fresh id unused among `taken` (ids never change once made: bindings use them). */
export function newId(prefix: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  for (let n = 1; ; n++) {
    const id = `${prefix}${n}`;
    if (!used.has(id)) return id;
  }
}

export function allWidgetIds(document: Pick<DashboardDocument, 'panes'>): string[] {
  return document.panes.flatMap((pane) => (pane.widgets ?? []).map((widget) => widget.id));
}

// ---- layout (§4) ----

function overlaps(a: Layout, b: Layout): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Whether `layout` fits the grid and touches no other pane. */
export function fits(panes: readonly Pane[], columns: number, paneId: string, layout: Layout): boolean {
  if (layout.x < 0 || layout.w < 1 || layout.x + layout.w > columns) return false;
  if (layout.y < 0 || layout.y > 9999 || layout.h < 1 || layout.h > 100) return false;
  return panes.every((pane) => pane.id === paneId || !overlaps(pane.layout, layout));
}

/** The first free place for a `w`×`h` pane, top to bottom, left to right. */
export function freePlace(panes: readonly Pane[], columns: number, w: number, h: number): Layout {
  const width = Math.min(w, columns);
  for (let y = 0; y <= 9999; y++)
    for (let x = 0; x + width <= columns; x++) {
      const layout = { x, y, w: width, h };
      if (fits(panes, columns, '', layout)) return layout;
    }
  return { x: 0, y: 9999, w: width, h };
}

/**
 * After `columns` drops, panes must still fit (§4): clamp `w`, then `x`, then move a pane that
 * overlaps an earlier one down until it is free. Panes are placed in reading order.
 */
export function reflow(panes: readonly Pane[], columns: number): Pane[] {
  const ordered = [...panes].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
  const placed: Pane[] = [];
  for (const pane of ordered) {
    const w = Math.min(pane.layout.w, columns);
    const x = Math.min(pane.layout.x, columns - w);
    let layout = { ...pane.layout, w, x };
    while (!fits(placed, columns, pane.id, layout)) layout = { ...layout, y: layout.y + 1 };
    placed.push({ ...pane, layout });
  }
  // Array order is the document's; only layouts change.
  return panes.map((pane) => placed.find((p) => p.id === pane.id) as Pane);
}

// ---- editing panes and widgets ----

/** A new empty 1×3 pane in the first free place; ids never repeat one in use. */
export function addPane(document: DashboardDocument): { document: DashboardDocument; pane: Pane } {
  const pane: Pane = {
    id: newId(
      'pane',
      document.panes.map((p) => p.id),
    ),
    title: '',
    layout: freePlace(document.panes, document.columns, 1, 3),
    widgets: [],
  };
  return { document: { ...document, panes: [...document.panes, pane] }, pane };
}

/**
 * A new text widget, not yet placed, for the selected pane (else the first). A document without panes
 * gets one to hold it; `document` is the input itself when nothing had to change.
 */
export function addWidget(
  document: DashboardDocument,
  selectedPaneId: string | null,
): { document: DashboardDocument; paneId: string; widget: Widget } {
  let target = document.panes.find((p) => p.id === selectedPaneId) ?? document.panes[0];
  let next = document;
  if (!target) {
    target = addPane(document).pane;
    next = { ...document, panes: [target] };
  }
  const widget: Widget = {
    id: newId('w', allWidgetIds(next)),
    type: 'text',
    title: '',
    enabled: true,
    settings: {},
  };
  return { document: next, paneId: target.id, widget };
}

/** Puts `widget` into pane `paneId`: replaced where it is, moved out of any other pane, else appended. */
export function applyWidget(document: DashboardDocument, widget: Widget, paneId: string): DashboardDocument {
  const panes = document.panes.map((pane) => {
    const kept = (pane.widgets ?? []).filter((w) => w.id !== widget.id || pane.id === paneId);
    if (pane.id !== paneId) return { ...pane, widgets: kept };
    const exists = kept.some((w) => w.id === widget.id);
    return {
      ...pane,
      widgets: exists ? kept.map((w) => (w.id === widget.id ? widget : w)) : [...kept, widget],
    };
  });
  return { ...document, panes };
}

// ---- export and import (§9) ----

export function exportFileName(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || 'dashboard'}.towpath-dashboard.json`;
}

export function exportDocument(document: DashboardDocument, now = new Date()): string {
  const dashboard: Record<string, unknown> = {};
  for (const key of DOCUMENT_FIELDS) dashboard[key] = document[key];
  const file = {
    format: 'towpath-dashboard',
    formatVersion: 1,
    exportedAt: now.toISOString(),
    generator: WRITER,
    dashboard,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

export class ImportError extends Error {
  override name = 'ImportError';
}

const ENVELOPE = [
  '_id',
  'visibility',
  'shareToken',
  'shareTokenVersion',
  'acl',
  'user',
  'isOwner',
  'canEdit',
  'canManageSharing',
  'documentRevision',
  'createdAt',
  'updatedAt',
];
export const IMPORT_LIMIT_BYTES = 5 * 1024 * 1024;

/** An export (or a bare or freeboard-style document) as a document; the first problem throws. */
export function importDocument(
  text: string,
  byteLength = new TextEncoder().encode(text).length,
): DashboardDocument {
  if (byteLength > IMPORT_LIMIT_BYTES) throw new ImportError('Import file is larger than 5 MiB');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ImportError('Import file is not valid JSON');
  }
  if (!isObject(parsed)) throw new ImportError('Import file must contain a JSON object');
  let source: Record<string, unknown> = parsed;
  if ('format' in parsed) {
    if (parsed.format !== 'towpath-dashboard') throw new ImportError('Not a Towpath dashboard export');
    const version = parsed.formatVersion;
    if (typeof version === 'number' && Number.isInteger(version) && version > 1)
      throw new ImportError(`This export needs a newer Towpath (format version ${version})`);
    if (version !== 1) throw new ImportError('Invalid format version');
    if (!isObject(parsed.dashboard)) throw new ImportError('Import file has no dashboard object');
    source = parsed.dashboard;
  }
  const copy: Record<string, unknown> = { ...source };
  for (const key of ENVELOPE) delete copy[key];
  const document = documentOf(copy);
  // Keep unknown top-level keys out: the API accepts only the eight fields.
  const paneIds = new Set<string>();
  const widgetIds = new Set<string>(
    document.panes
      .flatMap((p) => (isObject(p) && Array.isArray(p.widgets) ? p.widgets : []))
      .flatMap((w) => (isObject(w) && typeof w.id === 'string' ? [w.id] : [])),
  );
  for (const pane of document.panes) if (isObject(pane) && typeof pane.id === 'string') paneIds.add(pane.id);
  document.panes = document.panes.map((raw) => {
    if (!isObject(raw)) return raw;
    const pane = { ...raw } as Pane & { layout: Layout & { i?: unknown } };
    if (isObject(pane.layout)) {
      const { i, ...layout } = pane.layout as Layout & { i?: unknown };
      if (pane.id === undefined) {
        pane.id = typeof i === 'string' && ID.test(i) && !paneIds.has(i) ? i : newId('pane', paneIds);
        paneIds.add(pane.id);
      }
      pane.layout = layout;
    } else if (pane.id === undefined) {
      pane.id = newId('pane', paneIds);
      paneIds.add(pane.id);
    }
    if (Array.isArray(pane.widgets))
      pane.widgets = pane.widgets.map((widget) => {
        if (!isObject(widget) || widget.id !== undefined) return widget;
        const id = newId('w', widgetIds);
        widgetIds.add(id);
        return { ...widget, id };
      });
    return pane;
  });
  return document;
}

/** Profile ids the datasources name that this workstation does not have (§9 step 4 warnings). */
export function missingProfileWarnings(
  document: DashboardDocument,
  profileIds: ReadonlySet<string>,
): string[] {
  const warnings: string[] = [];
  for (const ds of document.datasources) {
    const settings = isObject(ds.settings) ? ds.settings : {};
    for (const key of ['credentialProfileId', 'brokerProfileId'])
      if (
        typeof settings[key] === 'string' &&
        settings[key] !== '' &&
        !profileIds.has(settings[key] as string)
      )
        warnings.push(`Datasource ${ds.title} refers to a profile that does not exist here`);
  }
  return [...new Set(warnings)];
}

type JsonObjects = Record<string, unknown>[];

/** The eight fields as the API's inputs take them (its Object scalar is any JSON object). */
export function documentInput(document: DashboardDocument) {
  return {
    title: document.title,
    version: document.version,
    image: document.image,
    datasources: document.datasources as unknown as JsonObjects,
    columns: document.columns,
    width: document.width,
    panes: document.panes as unknown as JsonObjects,
    settings: document.settings,
  };
}
