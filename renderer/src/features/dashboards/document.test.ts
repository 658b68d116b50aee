import { describe, expect, it } from 'vitest';
import {
  addPane,
  addWidget,
  applyWidget,
  type DashboardDocument,
  exportDocument,
  exportFileName,
  freePlace,
  ImportError,
  importDocument,
  missingProfileWarnings,
  type Pane,
  reflow,
} from './document.ts';

const DOC: DashboardDocument = {
  title: 'Winder',
  version: 'towpath 0.4.0',
  image: null,
  datasources: [{ id: 'winder', title: 'Winder', type: 'machine', settings: {} }],
  columns: 3,
  width: 'lg',
  panes: [
    {
      id: 'job',
      title: 'Job',
      layout: { x: 0, y: 0, w: 2, h: 4 },
      widgets: [{ id: 'w', type: 'text', title: 'Job', settings: {} }],
    },
  ],
  settings: { theme: 'dark' },
};

const pane = (id: string, x: number, y: number, w: number, h: number): Pane => ({
  id,
  layout: { x, y, w, h },
});

describe('export and import (§9)', () => {
  it('exports the eight fields in order with a final newline, and imports them back deep-equal', () => {
    const text = exportDocument(DOC, new Date('2025-03-01T08:15:30.125Z'));
    expect(text.endsWith('}\n')).toBe(true);
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(['format', 'formatVersion', 'exportedAt', 'generator', 'dashboard']);
    expect(parsed.exportedAt).toBe('2025-03-01T08:15:30.125Z');
    expect(Object.keys(parsed.dashboard)).toEqual([
      'title',
      'version',
      'image',
      'datasources',
      'columns',
      'width',
      'panes',
      'settings',
    ]);
    expect(importDocument(text)).toEqual(DOC);
  });

  it('names files by a slug of the title', () => {
    expect(exportFileName('Line 3 — Morning / Shift!')).toBe('line-3-morning-shift.towpath-dashboard.json');
    expect(exportFileName('???')).toBe('dashboard.towpath-dashboard.json');
    expect(exportFileName('x'.repeat(80))).toBe(`${'x'.repeat(60)}.towpath-dashboard.json`);
  });

  it('answers each bad file with the first problem', () => {
    const problem = (text: string, size?: number) => {
      try {
        importDocument(text, size);
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(ImportError);
        return (error as Error).message;
      }
    };
    expect(problem('{}', 5 * 1024 * 1024 + 1)).toBe('Import file is larger than 5 MiB');
    expect(problem('{nope')).toBe('Import file is not valid JSON');
    expect(problem('[1]')).toBe('Import file must contain a JSON object');
    expect(problem('{"format": "grafana"}')).toBe('Not a Towpath dashboard export');
    expect(problem('{"format": "towpath-dashboard", "formatVersion": 2}')).toBe(
      'This export needs a newer Towpath (format version 2)',
    );
    expect(problem('{"format": "towpath-dashboard", "formatVersion": "1"}')).toBe('Invalid format version');
    expect(problem('{"format": "towpath-dashboard", "formatVersion": 1, "dashboard": []}')).toBe(
      'Import file has no dashboard object',
    );
  });

  it('takes bare and freeboard-style documents: envelope dropped, pane ids from layout.i, widget ids made', () => {
    const imported = importDocument(
      JSON.stringify({
        _id: 'abc',
        visibility: 'PUBLIC',
        shareToken: 'secret-looking',
        title: 'Old board',
        panes: [
          {
            layout: { i: 'left', x: 0, y: 0, w: 1, h: 2 },
            widgets: [{ type: 'text' }, { id: 'w1', type: 'gauge' }],
          },
          { layout: { i: 'left', x: 1, y: 0, w: 1, h: 2 }, widgets: [] },
        ],
      }),
    );
    expect(imported).toMatchObject({
      title: 'Old board',
      columns: 3,
      width: 'md',
      settings: {},
      image: null,
    });
    expect(imported).not.toHaveProperty('visibility');
    expect(imported).not.toHaveProperty('shareToken');
    expect(imported.panes.map((p) => [p.id, p.layout])).toEqual([
      ['left', { x: 0, y: 0, w: 1, h: 2 }],
      ['pane1', { x: 1, y: 0, w: 1, h: 2 }],
    ]);
    expect(imported.panes[0]?.widgets?.map((w) => w.id)).toEqual(['w2', 'w1']);
  });

  it('warns of profile ids this workstation lacks', () => {
    const doc = {
      ...DOC,
      datasources: [
        { id: 'a', title: 'Resin', type: 'mqtt', settings: { brokerProfileId: 'gone' } },
        { id: 'b', title: 'Cells', type: 'http', settings: { credentialProfileId: 'here' } },
      ],
    };
    expect(missingProfileWarnings(doc, new Set(['here']))).toEqual([
      'Datasource Resin refers to a profile that does not exist here',
    ]);
  });
});

describe('layout (§4)', () => {
  it('finds the first free place, reading order', () => {
    expect(freePlace([pane('a', 0, 0, 2, 2)], 3, 1, 2)).toEqual({ x: 2, y: 0, w: 1, h: 2 });
    expect(freePlace([pane('a', 0, 0, 3, 2)], 3, 2, 1)).toEqual({ x: 0, y: 2, w: 2, h: 1 });
    expect(freePlace([], 2, 5, 1)).toEqual({ x: 0, y: 0, w: 2, h: 1 });
  });

  it('re-flows panes into fewer columns: clamp w, then x, then move overlapping panes down', () => {
    const panes = [pane('a', 0, 0, 4, 2), pane('b', 4, 0, 2, 2), pane('c', 0, 2, 6, 1)];
    const flowed = reflow(panes, 3);
    expect(flowed.map((p) => [p.id, p.layout])).toEqual([
      ['a', { x: 0, y: 0, w: 3, h: 2 }],
      ['b', { x: 1, y: 2, w: 2, h: 2 }],
      ['c', { x: 0, y: 4, w: 3, h: 1 }],
    ]);
  });
});

describe('editing panes and widgets', () => {
  const empty: DashboardDocument = { ...DOC, panes: [] };
  const widget = (id: string, title = '') => ({ id, type: 'text', title, settings: {} });

  it('adds a pane in the first free place with an unused id', () => {
    const { document, pane } = addPane(DOC);
    expect(pane).toEqual({ id: 'pane1', title: '', layout: { x: 2, y: 0, w: 1, h: 3 }, widgets: [] });
    expect(document.panes.map((p) => p.id)).toEqual(['job', 'pane1']);
    expect(addPane(document).pane.id).toBe('pane2');
    expect(DOC.panes).toHaveLength(1);
  });

  it('offers a new widget for the selected pane, else the first, without placing it', () => {
    const two = addPane(DOC).document;
    const chosen = addWidget(two, 'pane1');
    expect(chosen.document).toBe(two);
    expect(chosen.paneId).toBe('pane1');
    expect(chosen.widget).toEqual({ id: 'w1', type: 'text', title: '', enabled: true, settings: {} });
    expect(addWidget(two, 'gone').paneId).toBe('job');
  });

  it('makes a pane to hold the new widget when there is none', () => {
    const { document, paneId, widget } = addWidget(empty, null);
    expect(paneId).toBe('pane1');
    expect(document.panes).toEqual([
      { id: 'pane1', title: '', layout: { x: 0, y: 0, w: 1, h: 3 }, widgets: [] },
    ]);
    expect(widget.id).toBe('w1');
  });

  it('appends a new widget, replaces an edited one in place, and moves one between panes', () => {
    const two = addPane(DOC).document;
    const appended = applyWidget(two, widget('w1', 'New'), 'job');
    expect(appended.panes[0]?.widgets?.map((w) => w.id)).toEqual(['w', 'w1']);
    const edited = applyWidget(appended, widget('w', 'Renamed'), 'job');
    expect(edited.panes[0]?.widgets).toEqual([widget('w', 'Renamed'), widget('w1', 'New')]);
    const moved = applyWidget(edited, widget('w', 'Moved'), 'pane1');
    expect(moved.panes[0]?.widgets?.map((w) => w.id)).toEqual(['w1']);
    expect(moved.panes[1]?.widgets).toEqual([widget('w', 'Moved')]);
  });
});
